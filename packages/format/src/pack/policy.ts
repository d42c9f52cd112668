/**
 * The `context` member of ctxpkg.json: pack and sync policy (spec/pack.md "Policy"). Validation
 * collects every problem and throws one `E_INVALID_JSON` naming them all (the same code
 * ctxpkg.json's other members use).
 *
 * Pins name qualified node ids (`<package>#<local id>`; importer ids are
 * `<file>:<heading path>~<text hash>`, spec/format.md "Ids") or whole packages:
 *
 * ```json
 * "context": {
 *   "pins": ["@acme/auth#AGENTS.md:security/tokens~3f2a9c1d", "@acme/style"],
 *   "priorities": { "@acme/auth": 10 },
 *   "max_bytes": 32768, "stale": "flag", "disputed": "flag", "freshness": "auto",
 *   "min_activation": 0.05,
 *   "section_weights": { "gotchas": 3, "conventions": 3, "procedures": 2, "facts": 2 },
 *   "sync": { "targets": ["agents-md", "claude"], "auto": true, "max_bytes": 8192, "file_max_bytes": 8192 }
 * }
 * ```
 */
import { CtxpkgError, type Issue } from '../errors.js';
import { SECTIONS, type FlagPolicy, type FreshnessScope, type PackPolicy, type SectionName } from './types.js';

/**
 * Agent targets of `ctxpkg sync`, in the order they are written (spec/pack.md §11). Each is one
 * data module in `packages/cli/src/targets/agents/` (files, frontmatter, limits).
 */
export const SYNC_TARGETS = ['agents-md', 'claude', 'cursor', 'copilot', 'gemini', 'windsurf', 'kiro', 'cline'] as const;
export type SyncTarget = (typeof SYNC_TARGETS)[number];

/** Earlier names still accepted in ctxpkg.json and `--target` (read as the target they map to). */
export const SYNC_TARGET_ALIASES: Readonly<Record<string, SyncTarget>> = { 'claude-md': 'claude', 'claude-code': 'claude', codex: 'agents-md', 'gemini-cli': 'gemini' };

/** The target a name (or alias) stands for, or undefined. */
export function syncTargetOf(name: string): SyncTarget | undefined {
  return (SYNC_TARGETS as readonly string[]).includes(name) ? (name as SyncTarget) : SYNC_TARGET_ALIASES[name];
}

/** The `context.sync` member after validation. */
export interface SyncPolicy {
  /**
   * Enabled targets, or `null` (member absent): AGENTS.md plus the agents detected in the
   * project (their files or folders exist; spec/pack.md §11).
   */
  targets: SyncTarget[] | null;
  /** Run sync after install/uninstall (default true). */
  auto: boolean;
  /** Cap of the always-on block (AGENTS.md, CLAUDE.md, …) in bytes, markers included (default 8192). */
  max_bytes: number;
  /** Cap of each path-scoped rule file in bytes, frontmatter and markers included (default 8192). */
  file_max_bytes: number;
}

export interface ContextConfig {
  pack: PackPolicy;
  sync: SyncPolicy;
}

/** Largest accepted byte budget (64 MiB): larger values are a typo, not a budget. */
export const MAX_BUDGET_BYTES = 64 * 1024 * 1024;

/** The defaults (spec/pack.md "Policy"). A fresh object each call. */
export function defaultPackPolicy(): PackPolicy {
  return {
    pins: [],
    priorities: {},
    stale: 'flag',
    disputed: 'flag',
    freshness: 'auto',
    min_activation: 0.05,
    section_weights: { pinned: 0, gotchas: 3, conventions: 3, procedures: 2, facts: 2 },
    max_bytes: 32 * 1024,
  };
}

/**
 * Default sync policy. 8 KiB per always-on block and per rule file stays well under the agents'
 * own limits (README "Agent targets"): Codex reads AGENTS.md up to 32 KiB (`project_doc_max_bytes`,
 * shared with the project's own text), Claude Code warns above 40,000 characters of CLAUDE.md,
 * Windsurf truncates a workspace rule file after 12,000 characters.
 */
export function defaultSyncPolicy(): SyncPolicy {
  return { targets: null, auto: true, max_bytes: 8192, file_max_bytes: 8192 };
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isBudget = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0 && (v as number) <= MAX_BUDGET_BYTES;

/**
 * Validate the `context` member (`undefined` → defaults). Unknown keys are problems too (a typo
 * must not silently fall back to a default). Throws `E_INVALID_JSON` listing every problem.
 */
export function parseContextConfig(value: unknown, where = 'ctxpkg.json: context'): ContextConfig {
  const pack = defaultPackPolicy();
  const sync = defaultSyncPolicy();
  if (value === undefined) return { pack, sync };
  const issues: Issue[] = [];
  const bad = (path: string, message: string): void => {
    issues.push({ path: `${where}.${path}`.replace(/\.$/, ''), code: 'E_INVALID_JSON', message });
  };
  if (!isObj(value)) {
    throw new CtxpkgError('E_INVALID_JSON', `${where} must be an object`);
  }
  for (const [k, v] of Object.entries(value)) {
    switch (k) {
      case 'pins':
        if (!Array.isArray(v) || v.some((p) => typeof p !== 'string' || p === '')) bad(k, 'must be an array of node ids or package names');
        else pack.pins = [...new Set(v as string[])].sort();
        break;
      case 'priorities':
        if (!isObj(v) || Object.values(v).some((p) => typeof p !== 'number' || !Number.isFinite(p))) bad(k, 'must map names to finite numbers');
        else pack.priorities = { ...(v as Record<string, number>) };
        break;
      case 'max_bytes':
        if (!isBudget(v)) bad(k, `must be an integer from 1 to ${MAX_BUDGET_BYTES}`);
        else pack.max_bytes = v;
        break;
      case 'stale':
      case 'disputed':
        if (v !== 'flag' && v !== 'omit') bad(k, 'must be "flag" or "omit"');
        else pack[k] = v as FlagPolicy;
        break;
      case 'freshness':
        if (v === 'auto' || v === 'all' || v === 'none') pack.freshness = v;
        else if (Array.isArray(v) && v.every((p) => typeof p === 'string')) pack.freshness = [...(v as string[])].sort() as FreshnessScope;
        else bad(k, 'must be "auto", "all", "none" or an array of package names');
        break;
      case 'min_activation':
        if (typeof v !== 'number' || !(v >= 0 && v <= 1)) bad(k, 'must be a number from 0 to 1');
        else pack.min_activation = v;
        break;
      case 'section_weights':
        if (!isObj(v)) {
          bad(k, 'must be an object');
          break;
        }
        for (const [s, w] of Object.entries(v)) {
          if (!(SECTIONS as readonly string[]).includes(s) || s === 'pinned') bad(`${k}.${s}`, `unknown section (one of ${SECTIONS.slice(1).join(', ')})`);
          else if (!Number.isSafeInteger(w) || (w as number) < 0 || (w as number) > 1000) bad(`${k}.${s}`, 'must be an integer from 0 to 1000');
          else pack.section_weights[s as SectionName] = w as number;
        }
        break;
      case 'sync':
        parseSync(v, sync, (p, m) => bad(`sync.${p}`, m));
        break;
      default:
        bad(k, 'unknown member');
    }
  }
  if (issues.length > 0) {
    throw new CtxpkgError('E_INVALID_JSON', `${where}: ${issues.map((i) => `${i.path.slice(where.length + 1)} ${i.message}`).join('; ')}`, {
      hint: 'fix the "context" member of ctxpkg.json (see spec/pack.md "Policy")',
      details: { issues },
    });
  }
  return { pack, sync };
}

function parseSync(v: unknown, sync: SyncPolicy, bad: (path: string, message: string) => void): void {
  if (!isObj(v)) {
    bad('', 'must be an object');
    return;
  }
  for (const [k, x] of Object.entries(v)) {
    switch (k) {
      case 'targets':
        if (!Array.isArray(x) || x.some((t) => typeof t !== 'string' || syncTargetOf(t) === undefined)) {
          bad(k, `must be an array of ${SYNC_TARGETS.join(', ')}`);
        } else {
          const named = new Set((x as string[]).map((t) => syncTargetOf(t)));
          sync.targets = SYNC_TARGETS.filter((t) => named.has(t));
        }
        break;
      case 'auto':
        if (typeof x !== 'boolean') bad(k, 'must be true or false');
        else sync.auto = x;
        break;
      case 'max_bytes':
      case 'file_max_bytes':
        if (!isBudget(x)) bad(k, `must be an integer from 1 to ${MAX_BUDGET_BYTES}`);
        else sync[k] = x;
        break;
      default:
        bad(k, 'unknown member');
    }
  }
}

/**
 * Every agent target, in `SYNC_TARGETS` order. A new agent is one module here plus a row in the
 * README's targets table (ARCHITECTURE.md "Delivery: one selection, many encodings").
 */
import { SYNC_TARGETS, type SyncTarget } from '@ctxpkg/format/pack/policy';
import { agentsMd } from './agents-md.js';
import { claude } from './claude.js';
import { cline } from './cline.js';
import { copilot } from './copilot.js';
import { cursor } from './cursor.js';
import { gemini } from './gemini.js';
import { kiro } from './kiro.js';
import type { AgentTarget } from './types.js';
import { windsurf } from './windsurf.js';

export type { AgentTarget, AlwaysOn, ScopedRules, AgentLimit } from './types.js';

const ALL: readonly AgentTarget[] = [agentsMd, claude, cursor, copilot, gemini, windsurf, kiro, cline];

/** The target modules by id. */
export const AGENT_TARGETS: ReadonlyMap<SyncTarget, AgentTarget> = new Map(SYNC_TARGETS.map((id) => [id, ALL.find((t) => t.id === id) as AgentTarget]));

/** The module of `id`. */
export function agentTarget(id: SyncTarget): AgentTarget {
  return AGENT_TARGETS.get(id) as AgentTarget;
}

/**
 * The patterns of a rule set that target `t`'s frontmatter can carry (`usable`, in order) and
 * those it cannot, each with the reason (`ScopedRules.patternProblem`: a comma in a comma-joined
 * field, a character Cursor's and Windsurf's unquoted `globs` line cannot hold). `patterns` have
 * passed `usablePattern` (delivery.ts). Sync writes only `usable` into `t`'s rule file and warns for the rest.
 */
export function patternsFor(t: AgentTarget, patterns: readonly string[]): { usable: string[]; refused: Array<{ pattern: string; why: string }> } {
  const usable: string[] = [];
  const refused: Array<{ pattern: string; why: string }> = [];
  for (const p of patterns) {
    const why = t.scoped?.patternProblem?.(p);
    if (why === undefined) usable.push(p);
    else refused.push({ pattern: p, why });
  }
  return { usable, refused };
}

/**
 * The project file `ctxpkg.json`: declared dependencies (name → range), registry settings and the
 * trust policy. Members this module does not own (`context`, owned by the pack/sync code) are
 * preserved verbatim and in their original order when the file is rewritten.
 *
 * The file is validated strictly on every load, before any command writes anything: an unknown
 * member at the top level or in `trust` (a typo such as `trust.require_signatures` or `contexts`)
 * is `E_MANIFEST` naming the member and the file, with the valid names in the hint — a typo must
 * never silently fall back to a default. The `context` member is validated by its owner's parser
 * (`parseContextConfig`, spec/pack.md §2: `E_INVALID_JSON` naming every bad or unknown member).
 *
 * Shape (issue 5 item 1):
 * ```json
 * { "dependencies": { "@acme/auth-context": "^1.0.0" },
 *   "registry": "https://r.example/api",            // optional default
 *   "registries": { "@acme": "https://r.example/api" },
 *   "trust": { "require_signature": true, "instructions": ["@acme"] } }
 * ```
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format/errors';
import { parsePackageName } from '@ctxpkg/format/names';
import { parseContextConfig } from '@ctxpkg/format/pack/policy';
import { inSetting, normalizeRegistryUrl, parseRegistries } from './config.js';
import { readTextIfExists, writeFileAtomic } from './fsutil.js';
import { formatJson, isPlainObject, parseStrictJsonObject } from './jsonfile.js';
import { PROJECT_FILES } from './paths.js';

export interface TrustPolicy {
  /** Refuse packages without a valid signature (default true). */
  require_signature: boolean;
  /**
   * Scopes (`@acme`) or packages (`@acme/rules`) that are the project's own instructions
   * (spec/pack.md §11 "Trust"): their nodes are delivered as instructions, outside the untrusted
   * fence — only when signed, verified and their signer is pinned in ctxpkg.lock. Sorted, unique.
   */
  instructions: string[];
}

export interface ProjectManifest {
  /** Declared dependencies, name → version range, as written. */
  dependencies: Record<string, string>;
  registry?: string;
  registries: Record<string, string>;
  trust: TrustPolicy;
  /** Members owned by other modules (`context`, …), kept verbatim in original order. */
  extra: Record<string, unknown>;
}

const OWN_KEYS = new Set(['dependencies', 'registry', 'registries', 'trust']);
/** Members owned by other modules, validated by their parsers. */
const OTHER_KEYS = new Set(['context']);
/** Every member ctxpkg.json may have, in documentation order. */
export const MANIFEST_KEYS: readonly string[] = ['dependencies', 'registry', 'registries', 'trust', 'context'];
const TRUST_KEYS: readonly string[] = ['require_signature', 'instructions'];

/**
 * Validate one `trust.instructions` entry: a scope `@ns` or a scoped package name `@ns/name`.
 * Returns it; throws `E_INVALID_NAME`.
 */
export function validateTrustEntry(entry: string): string {
  if (/^@[^/]+$/.test(entry)) parsePackageName(`${entry}/x`);
  else parsePackageName(entry);
  return entry;
}

/** True when `pkg` is named by a `trust.instructions` entry (its scope, or itself). */
export function trustListed(instructions: readonly string[], pkg: string): boolean {
  return instructions.some((e) => e === pkg || (e.startsWith('@') && !e.includes('/') && pkg.startsWith(`${e}/`)));
}

function unknownMember(what: string, path: string, valid: readonly string[]): CtxpkgError {
  return new CtxpkgError('E_MANIFEST', `${what}: unknown member "${path}"`, {
    hint: `valid members${path.includes('.') ? ` of "${path.slice(0, path.lastIndexOf('.'))}"` : ''}: ${valid.join(', ')} (README "Project files")`,
    details: { file: what, member: path, valid: [...valid] },
  });
}

/** A fresh manifest with the defaults `ctxpkg init` writes. */
export function defaultManifest(): ProjectManifest {
  return { dependencies: {}, registries: {}, trust: { require_signature: true, instructions: [] }, extra: {} };
}

/**
 * The project root for `cwd`: the nearest ancestor holding `ctxpkg.json`, else `cwd` itself
 * (commands that write create the file there).
 */
export function findProjectRoot(cwd: string): { root: string; exists: boolean } {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, PROJECT_FILES.manifest))) return { root: dir, exists: true };
    const up = dirname(dir);
    if (up === dir) return { root: resolve(cwd), exists: false };
    dir = up;
  }
}

/**
 * Parse ctxpkg.json text. Dependency names and ranges are checked for shape here (strings);
 * their grammar is checked by the resolver. Throws `E_INVALID_JSON`, `E_DUPLICATE_KEY`,
 * `E_FORBIDDEN_KEY`, `E_USAGE`, `E_MANIFEST` (unknown members, see the file header), and
 * `E_INVALID_JSON` from the `context` parser.
 */
export function parseManifest(text: string, what: string = PROJECT_FILES.manifest): ProjectManifest {
  const o = parseStrictJsonObject(text, what);
  for (const k of Object.keys(o)) if (!OWN_KEYS.has(k) && !OTHER_KEYS.has(k)) throw unknownMember(what, k, MANIFEST_KEYS);
  const m = defaultManifest();
  if (o.dependencies !== undefined) {
    if (!isPlainObject(o.dependencies)) {
      throw new CtxpkgError('E_INVALID_JSON', `${what}: "dependencies" must be an object of name → range`);
    }
    for (const [name, range] of Object.entries(o.dependencies)) {
      if (typeof range !== 'string') {
        throw new CtxpkgError('E_INVALID_JSON', `${what}: the range of ${name} must be a string`);
      }
      m.dependencies[name] = range;
    }
  }
  if (o.registry !== undefined) {
    if (typeof o.registry !== 'string') throw new CtxpkgError('E_INVALID_JSON', `${what}: "registry" must be a URL string`);
    m.registry = inSetting(`${what}: registry`, () => normalizeRegistryUrl(o.registry as string));
  }
  m.registries = parseRegistries(o.registries, `${what}: registries`);
  if (o.trust !== undefined) {
    if (!isPlainObject(o.trust)) throw new CtxpkgError('E_INVALID_JSON', `${what}: "trust" must be an object`);
    for (const k of Object.keys(o.trust)) if (!TRUST_KEYS.includes(k)) throw unknownMember(what, `trust.${k}`, TRUST_KEYS);
    const rs = o.trust.require_signature;
    if (rs !== undefined && typeof rs !== 'boolean') {
      throw new CtxpkgError('E_INVALID_JSON', `${what}: trust.require_signature must be true or false`);
    }
    m.trust.require_signature = rs ?? true;
    const ti = o.trust.instructions;
    if (ti !== undefined) {
      if (!Array.isArray(ti) || ti.some((e) => typeof e !== 'string')) throw new CtxpkgError('E_INVALID_JSON', `${what}: trust.instructions must be an array of scopes (@acme) or package names (@acme/rules)`);
      for (const e of ti as string[]) {
        try {
          validateTrustEntry(e);
        } catch (err) {
          throw new CtxpkgError('E_INVALID_JSON', `${what}: trust.instructions: ${JSON.stringify(e)} is neither a scope (@acme) nor a package name (@acme/rules): ${(err as Error).message}`);
        }
      }
      m.trust.instructions = [...new Set(ti as string[])].sort();
    }
  }
  // The owner's parser, with its own code and wording (spec/pack.md §2: `E_INVALID_JSON`
  // "ctxpkg.json: context: …", every problem listed) — the same error render/sync/mcp give.
  if (o.context !== undefined) parseContextConfig(o.context);
  for (const [k, v] of Object.entries(o)) if (!OWN_KEYS.has(k)) m.extra[k] = v;
  return m;
}

/** Serialize: own members in a fixed order with sorted maps, then preserved members. LF-terminated. */
export function serializeManifest(m: ProjectManifest): string {
  const out: Record<string, unknown> = {};
  out.dependencies = Object.fromEntries(
    Object.keys(m.dependencies)
      .sort()
      .map((k) => [k, m.dependencies[k]]),
  );
  if (m.registry) out.registry = m.registry;
  out.registries = Object.fromEntries(
    Object.keys(m.registries)
      .sort()
      .map((k) => [k, m.registries[k]]),
  );
  out.trust = { require_signature: m.trust.require_signature, ...(m.trust.instructions.length > 0 ? { instructions: [...new Set(m.trust.instructions)].sort() } : {}) };
  for (const [k, v] of Object.entries(m.extra)) out[k] = v;
  return formatJson(out);
}

/** Read `<root>/ctxpkg.json`; a missing file gives the defaults. */
export function readManifest(root: string): ProjectManifest {
  const path = join(root, PROJECT_FILES.manifest);
  const text = readTextIfExists(path);
  return text === undefined ? defaultManifest() : parseManifest(text, path);
}

/** Write `<root>/ctxpkg.json` atomically. */
export function writeManifest(root: string, m: ProjectManifest): void {
  writeFileAtomic(join(root, PROJECT_FILES.manifest), serializeManifest(m));
}

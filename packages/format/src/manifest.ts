/**
 * The manifest model (v1 and v2 share one struct, FORMAT-FACTS §2) and its rules
 * (spec/format.md §4 "Manifest rules"). Reading decodes by the `MANIFEST` table, then
 * `manifestRuleIssues` checks what the table cannot express.
 */
import type { Issue } from './errors.js';
import type { Integrity } from './integrity.js';
import { isHex } from './hex.js';
import { isLegacyVersion, parsePackageName, validatePackageName, validateVersion } from './names.js';
import { decodeStruct, INVALID, newDecodeContext } from './schema/decode.js';
import { MANIFEST, PACKAGE_KINDS, PACKAGE_LAYERS } from './schema/manifest-tables.js';
import type { ManifestSignature } from './signature.js';
import { CtxpkgError } from './errors.js';

export { PACKAGE_KINDS, PACKAGE_LAYERS } from './schema/manifest-tables.js';

/** `context` (default, omitted on write), `skills`, `addon`, `grammar`. */
export type PackageKind = (typeof PACKAGE_KINDS)[number];
/** v1 layer names. */
export type PackageLayer = (typeof PACKAGE_LAYERS)[number];

/** One dependency, always in the reference's array form. */
export interface Dependency {
  /** Scoped `@ns/name`. */
  name: string;
  /** Version range (dialect: spec/format.md §17). */
  version_req: string;
  optional: boolean;
}

export interface Provenance {
  tool: string;
  tool_version: string;
  project_hash: string | null;
  source_session_id: string | null;
}

export interface Compatibility {
  min_lean_ctx_version: string | null;
  target_languages: string[];
  target_frameworks: string[];
}

/** Counts of the v1 layers; `compression_ratio` is informational (ctxpkg writes 0.0). */
export interface PackageStats {
  knowledge_facts: number;
  graph_nodes: number;
  graph_edges: number;
  pattern_count: number;
  gotcha_count: number;
  compression_ratio: number;
}

export interface GraphSummary {
  node_count: number;
  edge_count: number;
  node_types: string[];
  activation_mean?: number;
  /** RFC 3339 timestamp text. */
  freshness?: string;
}

export interface Marketplace {
  categories: string[];
  badges: string[];
  license?: string;
}

/**
 * A decoded manifest. Fields the reference writes as `null` when absent are `null`; fields it
 * skips when absent are absent. Timestamps are kept as written (RFC 3339 text).
 */
export interface Manifest {
  schema_version: number;
  conformance_level?: number;
  kind: PackageKind;
  name: string;
  version: string;
  description: string;
  author: string | null;
  scope?: string;
  created_at: string;
  updated_at: string | null;
  layers: PackageLayer[];
  dependencies: Dependency[];
  tags: string[];
  /** `private` hides the package on a registry; `public` or absent means public. */
  visibility?: string;
  integrity: Integrity;
  provenance: Provenance;
  compatibility: Compatibility;
  stats: PackageStats;
  signature?: ManifestSignature;
  graph_summary?: GraphSummary;
  marketplace?: Marketplace;
}

/** Options of the manifest rules. */
export interface ManifestRuleOptions {
  /** Accept legacy unscoped names (local files). Default true. */
  allowUnscoped?: boolean;
  /** Require a strict SemVer 2.0.0 version (HB-03). Default false (reference rule, ASCII). */
  requireSemver?: boolean;
}

/**
 * Rules beyond the struct table (spec/format.md §4): schema_version 1|2; name rules
 * (`E_INVALID_NAME`); version rules (`E_INVALID_VERSION`); non-context kinds need schema 2;
 * layers unique and non-empty for v1; integrity hex shape and byte_size > 0; a claimed
 * conformance level is 1–3 on a v2 manifest (`E_CONFORMANCE`); dependency names scoped and
 * unique; visibility `public`|`private`.
 */
export function manifestRuleIssues(m: Manifest, opts: ManifestRuleOptions = {}): Issue[] {
  const issues: Issue[] = [];
  const add = (path: string, code: Issue['code'], message: string) => issues.push({ path: `manifest.${path}`, code, message });
  const tryRule = (path: string, fn: () => void) => {
    try {
      fn();
    } catch (e) {
      if (e instanceof CtxpkgError) add(path, e.code, e.message);
      else throw e;
    }
  };
  if (m.schema_version !== 1 && m.schema_version !== 2) add('schema_version', 'E_MANIFEST', `schema_version must be 1 or 2, got ${m.schema_version}`);
  tryRule('name', () => validatePackageName(m.name, { allowUnscoped: opts.allowUnscoped ?? true }));
  if (opts.requireSemver) tryRule('version', () => validateVersion(m.version));
  else if (!isLegacyVersion(m.version)) {
    add('version', 'E_INVALID_VERSION', `invalid version ${JSON.stringify(m.version)}: 1-64 characters from A-Z a-z 0-9 . _ + -, not starting with "."`);
  }
  if (m.kind !== 'context' && m.schema_version < 2) add('kind', 'E_MANIFEST', `kind = ${m.kind} requires schema_version 2 (v2)`);
  if (new Set(m.layers).size !== m.layers.length) add('layers', 'E_MANIFEST', 'duplicate layer names');
  if (m.schema_version === 1 && m.layers.length === 0) add('layers', 'E_MANIFEST', 'a v1 package must list at least one layer');
  for (const f of ['sha256', 'content_hash'] as const) {
    if (!isHex(m.integrity[f], 64)) add(`integrity.${f}`, 'E_MANIFEST', `integrity.${f} must be 64 hex characters`);
  }
  if (!(m.integrity.byte_size > 0)) add('integrity.byte_size', 'E_MANIFEST', 'integrity.byte_size must be greater than 0');
  if (m.conformance_level !== undefined) {
    if (m.conformance_level < 1 || m.conformance_level > 3) {
      add('conformance_level', 'E_CONFORMANCE', `conformance_level must be 1, 2 or 3, got ${m.conformance_level}`);
    } else if (m.schema_version !== 2) add('conformance_level', 'E_CONFORMANCE', 'conformance_level requires schema_version 2');
  }
  const seen = new Set<string>();
  m.dependencies.forEach((d, i) => {
    tryRule(`dependencies[${i}].name`, () => parsePackageName(d.name));
    if (seen.has(d.name)) add(`dependencies[${i}].name`, 'E_MANIFEST', `duplicate dependency ${d.name}`);
    seen.add(d.name);
    if (d.version_req.length > 256 || /[\u0000-\u001f\u007f]/.test(d.version_req)) {
      add(`dependencies[${i}].version_req`, 'E_INVALID_RANGE', 'a version range must be at most 256 characters without control characters');
    }
  });
  if (m.visibility !== undefined && m.visibility !== 'public' && m.visibility !== 'private') {
    add('visibility', 'E_MANIFEST', `visibility must be "public" or "private", got ${JSON.stringify(m.visibility)}`);
  }
  return issues;
}

/**
 * Decode a parsed manifest value (from `parseStrictJson` with `rawNumbers`, or from
 * `fastParseDocument` with `plainNumbers`) and apply the rules.
 * Returns the manifest when the struct decoded, plus every problem found (`path` under `manifest.`).
 */
export function decodeManifest(raw: unknown, opts: ManifestRuleOptions & { plainNumbers?: boolean } = {}): { manifest?: Manifest; issues: Issue[] } {
  const ctx = newDecodeContext('E_MANIFEST', false, 100, opts.plainNumbers ?? false);
  const m = decodeStruct(MANIFEST, raw, ctx, 'manifest');
  if (m === INVALID) return { issues: ctx.issues };
  const manifest = m as unknown as Manifest;
  return { manifest, issues: [...ctx.issues, ...manifestRuleIssues(manifest, opts)] };
}

/**
 * Struct tables of the manifest (FORMAT-FACTS §2, reference `cp/manifest.rs`,
 * `cp/graph_model.rs`), in serialization order. The manifest is not hashed, and serde ignores
 * unknown manifest fields, so unknown keys are ignored here too (forbidden keys are refused by the
 * JSON parser before this).
 */
import { RawNumber } from '../json/parse.js';
import { decodeStruct, INVALID, report, sub } from './decode.js';
import { writeValue } from './encode.js';
import { def, nul, opt, req, str, strVec, type CustomType, type FieldSpec, type FieldType, type StructTable } from './types.js';

const table = (name: string, fields: FieldSpec[]): StructTable => ({ name, fields, unknownFields: 'ignore' });

/** Package kinds this version understands (spec §3.4). */
export const PACKAGE_KINDS = ['context', 'skills', 'addon', 'grammar'] as const;
/** v1 layer names, in the builder's order. */
export const PACKAGE_LAYERS = ['knowledge', 'graph', 'session', 'patterns', 'gotchas'] as const;

export const DEPENDENCY: StructTable = table('Dependency', [
  req('name', str),
  req('version_req', str),
  def('optional', 'bool', () => false),
]);

const dependencyArray: FieldType = { vec: { struct: DEPENDENCY } };

/**
 * `dependencies`: the reference's array `[{name, version_req, optional}]`; the v2 spec's object
 * map `{"@a/b": "^1"}` is accepted on read and normalized to the array form (optional false).
 */
export const DEPENDENCIES_TYPE: CustomType = {
  decode(value, ctx, path) {
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      let bad = false;
      value.forEach((d, i) => {
        const r = decodeStruct(DEPENDENCY, d, ctx, sub(path, i));
        if (r === INVALID) bad = true;
        else out.push(r);
      });
      return bad ? INVALID : out;
    }
    if (value !== null && typeof value === 'object' && !(value instanceof RawNumber) && !(value instanceof Date)) {
      const out: unknown[] = [];
      let bad = false;
      for (const [name, req] of Object.entries(value as Record<string, unknown>)) {
        if (typeof req !== 'string') {
          report(ctx, sub(path, name), 'in the dependency map form each value must be a version range string');
          bad = true;
        } else out.push({ name, version_req: req, optional: false });
      }
      return bad ? INVALID : out;
    }
    report(ctx, path, 'dependencies must be an array of {name, version_req, optional} (or a {name: range} map)');
    return INVALID;
  },
  encode(value, target, level, path) {
    writeValue(dependencyArray, value, target, level, path);
  },
};

export const INTEGRITY: StructTable = table('PackageIntegrity', [req('sha256', str), req('content_hash', str), req('byte_size', 'u64')]);

export const PROVENANCE: StructTable = table('PackageProvenance', [
  req('tool', str),
  req('tool_version', str),
  nul('project_hash', str),
  nul('source_session_id', str),
]);

export const COMPATIBILITY: StructTable = table('PackageCompatibility', [
  nul('min_lean_ctx_version', str),
  def('target_languages', strVec, () => []),
  def('target_frameworks', strVec, () => []),
]);

export const STATS: StructTable = table('PackageStats', [
  req('knowledge_facts', 'u32'),
  req('graph_nodes', 'u32'),
  req('graph_edges', 'u32'),
  req('pattern_count', 'u32'),
  req('gotcha_count', 'u32'),
  req('compression_ratio', 'f64'),
]);

export const SIGNATURE: StructTable = table('PackageSignature', [req('algorithm', str), req('public_key', str), req('value', str)]);

export const GRAPH_SUMMARY: StructTable = table('GraphSummary', [
  req('node_count', 'u32'),
  req('edge_count', 'u32'),
  def('node_types', strVec, () => []),
  opt('activation_mean', 'f64'),
  opt('freshness', 'datetime'),
]);

export const MARKETPLACE: StructTable = table('MarketplaceMeta', [
  def('categories', strVec, () => []),
  def('badges', strVec, () => []),
  opt('license', str),
]);

const zeroStats = () => ({ knowledge_facts: 0, graph_nodes: 0, graph_edges: 0, pattern_count: 0, gotcha_count: 0, compression_ratio: 0 });

/** `PackageManifest`. */
export const MANIFEST: StructTable = table('PackageManifest', [
  req('schema_version', 'u32'),
  opt('conformance_level', 'u32'),
  def(
    'kind',
    {
      enum: PACKAGE_KINDS,
      unknownCode: 'E_KIND_UNSUPPORTED',
      unknownMessage: (v) => `package kind ${JSON.stringify(v)} is not supported by this version: it needs a newer ctxpkg`,
    },
    () => 'context',
    (v) => v === 'context',
  ),
  req('name', str),
  req('version', str),
  req('description', str),
  nul('author', str),
  opt('scope', str),
  req('created_at', 'datetime'),
  nul('updated_at', 'datetime'),
  req('layers', { vec: { enum: PACKAGE_LAYERS } }),
  def('dependencies', { custom: DEPENDENCIES_TYPE }, () => []),
  def('tags', strVec, () => []),
  opt('visibility', str),
  req('integrity', { struct: INTEGRITY }),
  req('provenance', { struct: PROVENANCE }),
  def('compatibility', { struct: COMPATIBILITY }, () => ({ min_lean_ctx_version: null, target_languages: [], target_frameworks: [] })),
  def('stats', { struct: STATS }, zeroStats),
  opt('signature', { struct: SIGNATURE }),
  opt('graph_summary', { struct: GRAPH_SUMMARY }),
  opt('marketplace', { struct: MARKETPLACE }),
]);

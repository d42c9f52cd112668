/**
 * Writing packages (spec/format.md §10 "Writer"): a JSON bundle laid out like the reference's
 * `to_string_pretty` (2-space indent, `manifest` first, no trailing newline) whose compacted
 * `content` text is exactly what the reference's serializer emits for the same value, so the
 * package survives the reference's re-serialization of its store copy (FORMAT-FACTS §3.4).
 * Validate everything first; bytes come out only for a fully valid package.
 */
import { contentRuleIssues, decodeContent, type PackageContent } from './content.js';
import { conformanceIssues } from './conformance.js';
import { CtxpkgError, type Issue } from './errors.js';
import { graphSummary, nodeIndexOf } from './graph.js';
import { utf8 } from './hash.js';
import { computeIntegrityOfPieces } from './integrity.js';
import { roundF64To15 } from './json/numbers.js';
import {
  manifestRuleIssues, PACKAGE_LAYERS, type Compatibility, type Dependency, type GraphSummary, type Manifest,
  type Marketplace, type PackageKind, type PackageLayer, type PackageStats, type Provenance,
} from './manifest.js';
import { MAX_PACKAGE_BYTES } from './package-container.js';
import { decodeStruct, INVALID, newDecodeContext } from './schema/decode.js';
import { concatBytes } from './bytes.js';
import { ByteSink } from './json/bytesink.js';
import { encodeStruct, writeStruct } from './schema/encode.js';
import { PACKAGE_CONTENT } from './schema/content-tables.js';
import { MANIFEST } from './schema/manifest-tables.js';
import { signManifest } from './signature.js';

/** `provenance.tool_version` written by default. */
export const CTXPKG_TOOL_VERSION = '0.1.0';

/** What the caller provides; everything derivable is derived (see `buildManifest`). */
export interface ManifestInput {
  name: string;
  /** Strict SemVer 2.0.0. */
  version: string;
  description?: string;
  author?: string | null;
  scope?: string | null;
  /** RFC 3339 text or a Date (the writer normalizes to the reference's spelling). */
  created_at: string | Date;
  updated_at?: string | Date | null;
  kind?: PackageKind;
  /** Default: 2 when kind ≠ context, a context_graph exists or a level is claimed; else 1. */
  schema_version?: number;
  /**
   * Default (v2 graphs only): 1 when the graph has no edges, else the highest of 3, 2 the graph
   * satisfies (none if neither); `null` claims none.
   */
  conformance_level?: number | null;
  /** Default: the v1 layers present in content, in the order knowledge, graph, session, patterns, gotchas. */
  layers?: PackageLayer[];
  /** Array form, or the v2 spec's `{name: range}` map. */
  dependencies?: Array<{ name: string; version_req: string; optional?: boolean }> | Record<string, string>;
  tags?: string[];
  visibility?: 'public' | 'private' | null;
  provenance?: Partial<Provenance>;
  compatibility?: Partial<Compatibility>;
  /** Default: counted from the v1 layers, compression_ratio 0.0. */
  stats?: PackageStats;
  /** Default: derived from context_graph (reference `summary()`); `null` omits it. */
  graph_summary?: GraphSummary | null;
  marketplace?: Marketplace | null;
}

export interface PackageInput {
  manifest: ManifestInput;
  content: PackageContent;
}

export interface WriteOptions {
  /** Ed25519 seed (32 bytes or 64 hex characters): the package is signed when given. */
  seed?: Uint8Array | string;
  /** Allow a legacy unscoped name (local files only). Default false. */
  allowUnscoped?: boolean;
}

/** The written package and the model it was written from. */
export interface BuiltPackage {
  bytes: Uint8Array;
  /** The pretty JSON text (`bytes` is its UTF-8), decoded on first access. */
  readonly text: string;
  manifest: Manifest;
  /** The decoded content (an object decoding left unchanged may be the caller's own, shared). */
  content: PackageContent;
  /** Compacted content text (what the integrity hashes cover), decoded on first access. */
  readonly contentText: string;
}

function invalid(issues: Issue[], what: string): CtxpkgError {
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem(s))` : '';
  return new CtxpkgError(first.code, `cannot write the package: ${first.path ? first.path + ': ' : ''}${first.message}${more}`, {
    hint: `fix the ${what} and try again`,
    details: { issues },
  });
}

function deriveStats(c: PackageContent): PackageStats {
  return {
    knowledge_facts: c.knowledge?.facts.length ?? 0,
    graph_nodes: c.graph?.nodes.length ?? 0,
    graph_edges: c.graph?.edges.length ?? 0,
    pattern_count: c.patterns?.patterns.length ?? 0,
    gotcha_count: c.gotchas?.gotchas.length ?? 0,
    compression_ratio: 0,
  };
}

function inferLevel(c: PackageContent, index: ReadonlyMap<string, number> | undefined): number | undefined {
  const g = c.context_graph;
  if (!g) return undefined;
  if (g.edges.length === 0) return 1;
  for (const level of [3, 2]) if (conformanceIssues(level, g, undefined, index).length === 0) return level;
  return undefined;
}

function dependencies(d: ManifestInput['dependencies']): Dependency[] {
  if (!d) return [];
  if (Array.isArray(d)) return d.map((x) => ({ name: x.name, version_req: x.version_req, optional: x.optional ?? false }));
  return Object.entries(d).map(([name, version_req]) => ({ name, version_req, optional: false }));
}

/**
 * The manifest model for validated `content` (integrity and signature not yet set); `index`:
 * `nodeIndexOf` the graph's nodes, when it has a graph.
 */
function manifestModel(m: ManifestInput, content: PackageContent, index: ReadonlyMap<string, number> | undefined): Record<string, unknown> {
  const kind = m.kind ?? 'context';
  const level = m.conformance_level === null ? undefined : (m.conformance_level ?? inferLevel(content, index));
  const schema = m.schema_version ?? (kind !== 'context' || content.context_graph || level !== undefined ? 2 : 1);
  const g = content.context_graph;
  let summary = m.graph_summary === null ? undefined : m.graph_summary;
  if (summary === undefined && m.graph_summary !== null && g) {
    summary = graphSummary(g, roundF64To15);
  }
  return {
    schema_version: schema,
    ...(level !== undefined ? { conformance_level: level } : {}),
    kind,
    name: m.name,
    version: m.version,
    description: m.description ?? '',
    author: m.author ?? null,
    ...(m.scope != null ? { scope: m.scope } : {}),
    created_at: m.created_at,
    updated_at: m.updated_at ?? null,
    layers: m.layers ?? PACKAGE_LAYERS.filter((l) => content[l] !== undefined),
    dependencies: dependencies(m.dependencies),
    tags: m.tags ?? [],
    ...(m.visibility != null ? { visibility: m.visibility } : {}),
    integrity: { sha256: '0'.repeat(64), content_hash: '0'.repeat(64), byte_size: 1 },
    provenance: { tool: 'ctxpkg', tool_version: CTXPKG_TOOL_VERSION, project_hash: null, source_session_id: null, ...m.provenance },
    compatibility: { min_lean_ctx_version: null, target_languages: [], target_frameworks: [], ...m.compatibility },
    stats: m.stats ?? deriveStats(content),
    ...(summary ? { graph_summary: summary } : {}),
    ...(m.marketplace ? { marketplace: m.marketplace } : {}),
  };
}

/**
 * Validate and write a package, returning the bytes and the model. Throws (writing nothing):
 * `E_CONTENT`/`E_INVALID_JSON` (content not representable), `E_MANIFEST`, `E_INVALID_NAME`,
 * `E_INVALID_VERSION` (versions we write are strict SemVer), `E_KIND_UNSUPPORTED`,
 * `E_CONFORMANCE`, document codes, `E_KEY` (bad seed), `E_TOO_LARGE` (over 10 MiB);
 * `details.issues` lists every problem.
 */
export function buildPackage(input: PackageInput, opts: WriteOptions = {}): BuiltPackage {
  const dc = decodeContent(input.content, true);
  if (!dc.content) throw invalid(dc.issues, 'content');
  const content = dc.content;
  // one node index for the level inference and the graph rules
  const index = content.context_graph ? nodeIndexOf(content.context_graph.nodes) : undefined;
  const mctx = newDecodeContext('E_MANIFEST', true);
  const decoded = decodeStruct(MANIFEST, manifestModel(input.manifest, content, index), mctx, 'manifest');
  if (decoded === INVALID) throw invalid(mctx.issues, 'manifest');
  const manifest = decoded as unknown as Manifest;
  const issues = [
    ...manifestRuleIssues(manifest, { allowUnscoped: opts.allowUnscoped ?? false, requireSemver: true }),
    ...contentRuleIssues(content, manifest, { skipConformance: input.manifest.conformance_level === undefined && manifest.conformance_level !== undefined, index }),
  ];
  if (issues.length) throw invalid(issues, 'package');

  const sink = new ByteSink(true, true);
  writeStruct(PACKAGE_CONTENT, content, { sink, ctx: { roundF64: true, pretty: true } }, 1, 'content');
  // The pretty and compact outputs stay in the sink's chunks: the compact one (equal to
  // compactJsonBytes of the pretty one, without a scan) is hashed piece by piece, the pretty one
  // copied once into the package bytes.
  const contentPieces = sink.pieces();
  const contentSize = sink.size;
  const compactPieces = sink.compactPieces();
  manifest.integrity = computeIntegrityOfPieces(manifest.name, manifest.version, compactPieces);
  if (opts.seed !== undefined) manifest.signature = signManifest(manifest, opts.seed);
  else delete manifest.signature;
  const msink = new ByteSink(true);
  msink.ascii('{\n  "manifest": ');
  writeStruct(MANIFEST, manifest, { sink: msink, ctx: { roundF64: false, pretty: true } }, 1, 'manifest');
  msink.ascii(',\n  "content": ');
  const head = msink.bytes();
  const bytes = new Uint8Array(head.length + contentSize + 2);
  bytes.set(head, 0);
  let o = head.length;
  for (const p of contentPieces) {
    bytes.set(p, o);
    o += p.length;
  }
  bytes.set([0x0a, 0x7d], o); // LF and the closing brace
  if (bytes.length > MAX_PACKAGE_BYTES) {
    throw new CtxpkgError('E_TOO_LARGE', `the package would be ${bytes.length} bytes, above the limit of ${MAX_PACKAGE_BYTES} bytes`, {
      hint: 'split the content into several packages',
      details: { size: bytes.length, limit: MAX_PACKAGE_BYTES },
    });
  }
  const built = { bytes, manifest, content };
  let text: string | undefined;
  let contentText: string | undefined;
  Object.defineProperty(built, 'text', { enumerable: true, get: () => (text ??= DECODER.decode(bytes)) });
  Object.defineProperty(built, 'contentText', { enumerable: true, get: () => (contentText ??= DECODER.decode(concatBytes(compactPieces))) });
  return built as BuiltPackage;
}

const DECODER = new TextDecoder();

/** `buildPackage(input, opts).bytes`: the JSON bundle, signed when `opts.seed` is given. */
export function writePackage(input: PackageInput, opts: WriteOptions = {}): Uint8Array {
  return buildPackage(input, opts).bytes;
}

/**
 * The text the writer emits for `content` after decoding it (compact, hashed form). Equal to
 * `VerifiedPackage.contentText` exactly when the package's content is canonical, i.e. when the
 * reference's store copy will keep the same hash (FORMAT-FACTS §3.4). Throws like `buildPackage`.
 */
export function canonicalContentText(content: PackageContent): string {
  const dc = decodeContent(content, true);
  if (!dc.content) throw invalid(dc.issues, 'content');
  return encodeStruct(PACKAGE_CONTENT, dc.content, { roundF64: true, pretty: false }, 0, 'content');
}

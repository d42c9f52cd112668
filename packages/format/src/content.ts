/**
 * The content model (`PackageContent`, FORMAT-FACTS §2 "Content structs", §5) and the rules that
 * tie content to the manifest: `kind` coherence (§5.4), graph shape, conformance levels and
 * skills documents (spec/format.md §5–§7).
 */
import type { Issue } from './errors.js';
import type { ContextGraph } from './graph-types.js';
import type { Manifest } from './manifest.js';
import { conformanceIssues } from './conformance.js';
import { documentIssues } from './documents.js';
import { graphIssues, nodeIndexOf } from './graph.js';
import { decodeStruct, INVALID, newDecodeContext } from './schema/decode.js';
import { PACKAGE_CONTENT } from './schema/content-tables.js';

export type FactPrivacy = 'project_only' | 'linked_projects' | 'team';
export type SensitivityLevel = 'public' | 'internal' | 'confidential' | 'secret';
export type KnowledgeArchetype =
  | 'pattern' | 'preference' | 'architecture' | 'gotcha' | 'convention' | 'dependency' | 'workflow' | 'observation' | 'decision' | 'fact';

/** Timestamps are RFC 3339 text (the writer also accepts `Date`). */
export type Timestamp = string;

export interface FidelityScore {
  structural: number;
  semantic: number;
  computed_at: Timestamp;
}

/** Reference `KnowledgeFact` (knowledge/types.rs). Defaulted fields may be omitted on write. */
export interface KnowledgeFact {
  category: string;
  key: string;
  value: string;
  source_session: string;
  /** f32 */
  confidence: number;
  created_at: Timestamp;
  last_confirmed: Timestamp;
  retrieval_count?: number;
  last_retrieved?: Timestamp | null;
  valid_from?: Timestamp | null;
  valid_until?: Timestamp | null;
  supersedes?: string | null;
  confirmation_count?: number;
  feedback_up?: number;
  feedback_down?: number;
  last_feedback?: Timestamp | null;
  privacy?: FactPrivacy;
  sensitivity?: SensitivityLevel;
  imported_from?: string | null;
  archetype?: KnowledgeArchetype;
  fidelity?: FidelityScore | null;
  revision_count?: number;
}

export interface ProjectPattern {
  pattern_type: string;
  description: string;
  examples: string[];
  source_session: string;
  created_at: Timestamp;
}

export interface ConsolidatedInsight {
  summary: string;
  from_sessions: string[];
  timestamp: Timestamp;
}

export interface KnowledgeLayer {
  facts: KnowledgeFact[];
  patterns: ProjectPattern[];
  insights: ConsolidatedInsight[];
  exported_at: Timestamp;
}

export interface GraphNodeExport {
  kind: string;
  name: string;
  file_path: string;
  line_start?: number;
  line_end?: number;
  metadata?: string;
}

export interface GraphEdgeExport {
  source_path: string;
  source_name: string;
  target_path: string;
  target_name: string;
  kind: string;
  metadata?: string;
}

export interface GraphLayer {
  nodes: GraphNodeExport[];
  edges: GraphEdgeExport[];
  exported_at: Timestamp;
}

export interface SessionFinding {
  summary: string;
  file?: string;
  line?: number;
}

export interface SessionDecision {
  summary: string;
  rationale?: string;
}

export interface SessionLayer {
  task_description: string | null;
  findings: SessionFinding[];
  decisions: SessionDecision[];
  next_steps: string[];
  files_touched: string[];
  exported_at: Timestamp;
}

export interface PatternsLayer {
  patterns: ProjectPattern[];
  exported_at: Timestamp;
}

export interface GotchaExport {
  id: string;
  category: string;
  /** The reference writes `critical`, `warning` or `info`; any string is accepted. */
  severity: string;
  trigger: string;
  resolution: string;
  file_patterns?: string[];
  /** f32 */
  confidence: number;
}

export interface GotchasLayer {
  gotchas: GotchaExport[];
  exported_at: Timestamp;
}

/** `kind=addon` payload: the verbatim `lean-ctx-addon.toml`. */
export interface AddonContent {
  manifest_toml: string;
}

/** One skills document: `body` = base64(zstd(plaintext)), `sha256` = hex SHA-256 of the plaintext. */
export interface DocumentBlob {
  path: string;
  sha256: string;
  encoding: string;
  body: string;
}

export interface SkillsDocuments {
  files: DocumentBlob[];
}

/** `content`: every layer optional. */
export interface PackageContent {
  knowledge?: KnowledgeLayer;
  graph?: GraphLayer;
  session?: SessionLayer;
  patterns?: PatternsLayer;
  gotchas?: GotchasLayer;
  context_graph?: ContextGraph;
  addon?: AddonContent;
  documents?: SkillsDocuments;
}

/** `kind` coherence (FORMAT-FACTS §5.4 table). */
function kindIssues(kind: Manifest['kind'], c: PackageContent): Issue[] {
  const issues: Issue[] = [];
  const add = (path: string, message: string) => issues.push({ path, code: 'E_CONTENT', message });
  if (kind === 'addon' && !c.addon) add('content.addon', 'kind=addon requires a content.addon payload');
  if (kind === 'skills' && !c.documents) add('content.documents', 'kind=skills requires a content.documents payload');
  if (kind !== 'addon' && c.addon) add('content.addon', `kind=${kind} must not carry an addon payload`);
  if (kind !== 'skills' && c.documents) add('content.documents', `kind=${kind} must not carry skills documents`);
  if (kind === 'addon' && c.addon && c.addon.manifest_toml.trim() === '') add('content.addon.manifest_toml', 'the addon manifest is empty');
  return issues;
}

/** Options of the content rules. */
export interface ContentRuleOptions {
  /**
   * The parsed (raw) content value, used to check that level-3 graphs write `activation` and
   * `weight` explicitly. Without it that presence check is skipped.
   */
  raw?: unknown;
  /** Skip the conformance check (the caller has just established the level itself). */
  skipConformance?: boolean;
  /** `nodeIndexOf(content.context_graph.nodes)` when the caller has built it already. */
  index?: ReadonlyMap<string, number>;
}

/**
 * Every rule that ties `content` to `manifest`: kind coherence, graph shape (`graph.ts`),
 * the claimed conformance level (`conformance.ts`) and skills documents (`documents.ts`).
 */
export function contentRuleIssues(content: PackageContent, manifest: Pick<Manifest, 'kind' | 'conformance_level'>, opts: ContentRuleOptions = {}): Issue[] {
  const issues = kindIssues(manifest.kind, content);
  // one node index for the graph and conformance rules
  const index = content.context_graph ? (opts.index ?? nodeIndexOf(content.context_graph.nodes)) : undefined;
  if (content.context_graph) issues.push(...graphIssues(content.context_graph, index));
  if (manifest.conformance_level !== undefined && !opts.skipConformance) {
    const rawGraph = (opts.raw as { context_graph?: unknown } | undefined)?.context_graph;
    issues.push(...conformanceIssues(manifest.conformance_level, content.context_graph, rawGraph, index));
  }
  if (content.documents) issues.push(...documentIssues(content.documents).issues);
  return issues;
}

/**
 * Decode a parsed content value by the `PACKAGE_CONTENT` table: from `parseStrictJson` with
 * `rawNumbers`; from `fastParseDocument` with `plainNumbers`; or, with `normalize`, a model
 * object given to the writer (plain numbers, `Date`s, timestamps normalized). `inPlace` (for
 * trees the caller owns) adds defaults to `raw` itself instead of copying it. Otherwise `raw` is
 * not modified, and an object of it that decoding leaves unchanged is shared, not copied.
 */
export function decodeContent(raw: unknown, normalize = false, plainNumbers = normalize, inPlace = false): { content?: PackageContent; issues: Issue[] } {
  const ctx = newDecodeContext('E_CONTENT', normalize, 100, plainNumbers, inPlace);
  const c = decodeStruct(PACKAGE_CONTENT, raw, ctx, 'content');
  if (c === INVALID) return { issues: ctx.issues };
  return { content: c as PackageContent, issues: ctx.issues };
}

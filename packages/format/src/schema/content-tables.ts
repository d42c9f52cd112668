/**
 * Struct tables of `content` (FORMAT-FACTS §2 "Content structs", §5.1; reference
 * `cp/content.rs`, `cp/graph_model.rs`, `core/knowledge/types.rs`), in serialization order.
 * Content is hashed, so unknown fields are errors: the reference's store would drop them and its
 * own integrity check would then fail (FORMAT-FACTS §0.6).
 */
import { def, nul, opt, req, str, strVec, type FieldSpec, type FieldType, type StructTable } from './types.js';

const table = (name: string, fields: FieldSpec[]): StructTable => ({ name, fields, unknownFields: 'error' });

/** `FactPrivacy` (serde snake_case), default `project_only`. */
export const FACT_PRIVACY = ['project_only', 'linked_projects', 'team'] as const;
/** `SensitivityLevel`, default `public`. */
export const SENSITIVITY_LEVELS = ['public', 'internal', 'confidential', 'secret'] as const;
/** `KnowledgeArchetype`, default `fact`. */
export const KNOWLEDGE_ARCHETYPES = [
  'pattern', 'preference', 'architecture', 'gotcha', 'convention', 'dependency', 'workflow', 'observation', 'decision', 'fact',
] as const;

export const FIDELITY: StructTable = table('FidelityScore', [req('structural', 'f64'), req('semantic', 'f64'), req('computed_at', 'datetime')]);

export const KNOWLEDGE_FACT: StructTable = table('KnowledgeFact', [
  req('category', str),
  req('key', str),
  req('value', str),
  req('source_session', str),
  req('confidence', 'f32'),
  req('created_at', 'datetime'),
  req('last_confirmed', 'datetime'),
  def('retrieval_count', 'u32', () => 0),
  nul('last_retrieved', 'datetime'),
  nul('valid_from', 'datetime'),
  nul('valid_until', 'datetime'),
  nul('supersedes', str),
  def('confirmation_count', 'u32', () => 0),
  def('feedback_up', 'u32', () => 0),
  def('feedback_down', 'u32', () => 0),
  nul('last_feedback', 'datetime'),
  def('privacy', { enum: FACT_PRIVACY }, () => 'project_only'),
  def('sensitivity', { enum: SENSITIVITY_LEVELS }, () => 'public'),
  nul('imported_from', str),
  def('archetype', { enum: KNOWLEDGE_ARCHETYPES }, () => 'fact'),
  nul('fidelity', { struct: FIDELITY }),
  def('revision_count', 'u32', () => 0),
]);

export const PROJECT_PATTERN: StructTable = table('ProjectPattern', [
  req('pattern_type', str),
  req('description', str),
  req('examples', strVec),
  req('source_session', str),
  req('created_at', 'datetime'),
]);

export const CONSOLIDATED_INSIGHT: StructTable = table('ConsolidatedInsight', [
  req('summary', str),
  req('from_sessions', strVec),
  req('timestamp', 'datetime'),
]);

export const KNOWLEDGE_LAYER: StructTable = table('KnowledgeLayer', [
  req('facts', { vec: { struct: KNOWLEDGE_FACT } }),
  req('patterns', { vec: { struct: PROJECT_PATTERN } }),
  req('insights', { vec: { struct: CONSOLIDATED_INSIGHT } }),
  req('exported_at', 'datetime'),
]);

export const GRAPH_NODE_EXPORT: StructTable = table('GraphNodeExport', [
  req('kind', str),
  req('name', str),
  req('file_path', str),
  opt('line_start', 'usize'),
  opt('line_end', 'usize'),
  opt('metadata', str),
]);

export const GRAPH_EDGE_EXPORT: StructTable = table('GraphEdgeExport', [
  req('source_path', str),
  req('source_name', str),
  req('target_path', str),
  req('target_name', str),
  req('kind', str),
  opt('metadata', str),
]);

export const GRAPH_LAYER: StructTable = table('GraphLayer', [
  req('nodes', { vec: { struct: GRAPH_NODE_EXPORT } }),
  req('edges', { vec: { struct: GRAPH_EDGE_EXPORT } }),
  req('exported_at', 'datetime'),
]);

export const SESSION_FINDING: StructTable = table('SessionFinding', [req('summary', str), opt('file', str), opt('line', 'u32')]);
export const SESSION_DECISION: StructTable = table('SessionDecision', [req('summary', str), opt('rationale', str)]);

export const SESSION_LAYER: StructTable = table('SessionLayer', [
  nul('task_description', str),
  req('findings', { vec: { struct: SESSION_FINDING } }),
  req('decisions', { vec: { struct: SESSION_DECISION } }),
  req('next_steps', strVec),
  req('files_touched', strVec),
  req('exported_at', 'datetime'),
]);

export const PATTERNS_LAYER: StructTable = table('PatternsLayer', [
  req('patterns', { vec: { struct: PROJECT_PATTERN } }),
  req('exported_at', 'datetime'),
]);

export const GOTCHA_EXPORT: StructTable = table('GotchaExport', [
  req('id', str),
  req('category', str),
  req('severity', str),
  req('trigger', str),
  req('resolution', str),
  def('file_patterns', strVec, () => []),
  req('confidence', 'f32'),
]);

export const GOTCHAS_LAYER: StructTable = table('GotchasLayer', [
  req('gotchas', { vec: { struct: GOTCHA_EXPORT } }),
  req('exported_at', 'datetime'),
]);

export const CONTEXT_NODE: StructTable = table('ContextNode', [
  req('id', str),
  req('type', str),
  req('content', str),
  def('activation', 'f64', () => 1.0),
  opt('category', str),
  opt('source', str),
  opt('created_at', 'datetime'),
  opt('decay_half_life_days', 'u32'),
  opt('blob_ref', str),
  opt('file_path', str),
  opt('line_start', 'usize'),
  opt('line_end', 'usize'),
  opt('confidence', 'f32'),
  opt('supersedes', str),
]);

export const CONTEXT_EDGE: StructTable = table('ContextEdge', [
  req('from', str),
  req('to', str),
  req('type', str),
  def('weight', 'f64', () => 1.0),
  def('coactivations', 'u32', () => 0, (v) => v === 0),
  opt('metadata', str),
]);

export const CONTEXT_GRAPH: StructTable = table('ContextGraph', [
  req('format', str),
  req('nodes', { vec: { struct: CONTEXT_NODE } }),
  req('edges', { vec: { struct: CONTEXT_EDGE } }),
]);

export const ADDON_CONTENT: StructTable = table('AddonContent', [req('manifest_toml', str)]);

export const DOCUMENT_BLOB: StructTable = table('DocumentBlob', [
  req('path', str),
  req('sha256', str),
  req('encoding', str),
  req('body', str),
]);

export const DOCUMENTS: StructTable = table('SkillsDocuments', [req('files', { vec: { struct: DOCUMENT_BLOB } })]);

/** `PackageContent`: every layer optional and skipped when absent, in this order. */
export const PACKAGE_CONTENT: StructTable = table('PackageContent', [
  opt('knowledge', { struct: KNOWLEDGE_LAYER }),
  opt('graph', { struct: GRAPH_LAYER }),
  opt('session', { struct: SESSION_LAYER }),
  opt('patterns', { struct: PATTERNS_LAYER }),
  opt('gotchas', { struct: GOTCHAS_LAYER }),
  opt('context_graph', { struct: CONTEXT_GRAPH }),
  opt('addon', { struct: ADDON_CONTENT }),
  opt('documents', { struct: DOCUMENTS }),
]);

/**
 * Output schemas of the MCP tools (spec/pack.md §12), advertised as each tool's `outputSchema`
 * and met by its `structuredContent`. One hit shape serves search, nodes, sections and
 * neighbours: where a node came from (package@version, source file and lines, heading path), its
 * text (escaped as in packs: no control or invisible characters) and its trust tier.
 */
import { z } from 'zod';

/** `instructions`: from a package the project trusts (signed, verified, listed); `reference`: everything else. */
export const trustTier = z.enum(['instructions', 'reference']).describe('instructions: a package listed in trust.instructions (signed, signer pinned); reference: untrusted reference data');

export const hitShape = {
  id: z.string().describe('qualified node id (@ns/name#local-id); pass it to get_node or neighbors'),
  package: z.string(),
  version: z.string(),
  type: z.string().describe('node type: gotcha, convention, procedure, fact, …'),
  file: z.string().nullable().describe('source file, relative to the package root'),
  lines: z.tuple([z.number().int(), z.number().int()]).nullable().describe('source lines of the text shown (1-based, inclusive)'),
  node_lines: z.tuple([z.number().int(), z.number().int()]).nullable().describe('source lines of the whole node'),
  excerpt: z.boolean().describe('true when text shows only the matching part of a long node (get_node shows it all)'),
  heading_path: z.array(z.string()).describe('enclosing headings, outermost first'),
  section: z.string().nullable().describe('id of the innermost enclosing section; pass it to get_section'),
  trust: trustTier,
  flags: z.array(z.string()).describe('stale, absent, disputed'),
  text: z.string(),
};
export const hit = z.object(hitShape);
export type Hit = z.infer<typeof hit>;

export const searchOutput = {
  query: z.string(),
  total: z.number().int().describe('nodes that match the query'),
  limit: z.number().int(),
  max_bytes: z.number().int(),
  hits: z.array(
    z.object({
      rank: z.number().int(),
      score: z.number(),
      ...hitShape,
      also: z.array(z.string()).describe('ids of other matching nodes with exactly this text (not repeated as hits)'),
    }),
  ),
  not_shown: z.number().int().describe('matching nodes left out by the limit or the byte budget'),
};

export const edge = z.object({ type: z.string(), direction: z.enum(['out', 'in']), node: z.string() });

export const nodeOutput = {
  id: z.string(),
  withheld: z.object({ reason: z.string(), secret_kinds: z.array(z.string()) }).nullable().describe('why the node is not shown (screening), or null'),
  structural: z.boolean().describe('a section or scope node (organizes other nodes)'),
  node: hit.nullable(),
  truncated: z.boolean(),
  edges: z.array(edge),
};

export const sectionOutput = {
  section: z.object({
    id: z.string(),
    package: z.string(),
    version: z.string(),
    file: z.string().nullable(),
    lines: z.tuple([z.number().int(), z.number().int()]).nullable(),
    heading_path: z.array(z.string()),
  }),
  total: z.number().int().describe('deliverable nodes in the section and its subsections'),
  shown: z.number().int(),
  complete: z.boolean().describe('false when max_bytes cut the section short (in source order)'),
  nodes: z.array(hit),
};

export const neighborsOutput = {
  start: z.string(),
  depth: z.number().int(),
  reached: z.number().int(),
  hidden: z.number().int().describe('structural or withheld nodes reached but not shown'),
  nodes: z.array(z.object({ distance: z.number().int(), via: edge, ...hitShape })),
};

export const packOutput = {
  bytes: z.number().int(),
  max_bytes: z.number().int(),
  pack_sha256: z.string(),
  delivered: z.number().int(),
  omitted: z.number().int(),
  by_reason: z.record(z.string(), z.number().int()),
  warnings: z.array(z.string()).describe('problems the pack was delivered despite (a pin that names no installed node, with its fix)'),
};

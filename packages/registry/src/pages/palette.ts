/**
 * Colour classes for node and edge types on the pages (tree badges, graph, legend). A type name
 * is package text, so it never becomes a class name itself: it maps to one of a fixed set of
 * classes (`c0`…`c11` for nodes, `e0`…`e7` for edges) defined in the page stylesheet. Known types
 * have fixed colours; any other node type gets a class by a stable hash of its name, and every
 * other edge type the one "other" class.
 */

const NODE_CLASSES = 12;
const EDGE_CLASSES = 8;

const KNOWN_NODE: Record<string, number> = {
  section: 0,
  gotcha: 1,
  convention: 2,
  procedure: 3,
  fact: 4,
  decision: 5,
  scope: 6,
  workflow: 7,
  dependency: 8,
  observation: 9,
  code_fn: 10,
};

const KNOWN_EDGE: Record<string, number> = {
  contains: 0,
  references: 1,
  imports: 2,
  applies_to: 3,
  relates_to: 4,
  contradicts: 5,
  supersedes: 6,
};

/** FNV-1a over UTF-16 code units: a stable small hash of a type name. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The colour class of a node type (`c0`…`c11`). */
export function nodeClass(type: string): string {
  const k = Object.hasOwn(KNOWN_NODE, type) ? KNOWN_NODE[type] : hash(type) % NODE_CLASSES;
  return `c${k}`;
}

/** The colour class of an edge type (`e0`…`e7`; every unknown type shares `e7`). */
export function edgeClass(type: string): string {
  return `e${Object.hasOwn(KNOWN_EDGE, type) ? KNOWN_EDGE[type] : EDGE_CLASSES - 1}`;
}


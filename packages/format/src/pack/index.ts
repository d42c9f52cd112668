/**
 * The context-pack compiler and its helpers (spec/pack.md). Pure.
 */
export * from './answer.js';
export * from './budget.js';
export * from './compile.js';
export { DIGEST_BYTES, DigestArena, HEX_RUN } from './digests.js';
export * from './escape.js';
export * from './focus.js';
export * from './freshness.js';
export * from './graph-check.js';
export * from './item.js';
export * from './lazy-order.js';
export * from './node-facts.js';
export * from './order.js';
export * from './passage.js';
export * from './policy.js';
export * from './receipt.js';
export * from './render.js';
export { renderJson } from './render-json.js';
export { layoutItems, locationOf, provenanceComment, renderMarkdown } from './render-md.js';
export { escapeStructure } from './md-structure.js';
export { neutralizeImports } from './imports.js';
export * from './sections.js';
export * from './scope.js';
export * from './glob.js';
export * from './search.js';
export { TermIndex } from './search-terms.js';
export { compoundTerms } from './search-tokens.js';
export * from './screen.js';
export * from './select.js';
export * from './tiers.js';
export * from './types.js';

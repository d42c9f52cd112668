/**
 * Readable search snippets (spec/registry.md "Catalog and search"): text around the hit, without
 * the index's field noise (node type, category, file path, copies of name/description/tags).
 */
import { describe, expect, it } from 'vitest';
import { readableSnippet, snippetSources } from './sqlite-search.js';

// What the publish gate stores (gate-text.ts searchText): name, description, tags, then one
// `<type> <category> <file path> <content>` part per node.
const BODY = [
  '@demo/rules',
  'Context from AGENTS.md',
  'security auth',
  'section agents-md AGENTS.md Rules',
  'section agents-md AGENTS.md Security',
  'gotcha agents-md AGENTS.md Never log session tokens or API keys.',
  'fact agents-md AGENTS.md Rotate keys every month.',
  'section agents-md AGENTS.md Style',
  'convention agents-md AGENTS.md Prefer named exports.',
  'procedure cursor .cursor/rules/db.mdc Run the migrations first:',
  '  npm run migrate -- --to latest',
].join('\n');
const sources = snippetSources(BODY, '@demo/rules', 'Context from AGENTS.md', ['security', 'auth']);

describe('search snippets', () => {
  it('cut the node-part prefix and the copied name/description/tags lines', () => {
    expect(sources).toEqual([
      'Context from AGENTS.md',
      'Rules',
      'Security',
      'Never log session tokens or API keys.',
      'Rotate keys every month.',
      'Style',
      'Prefer named exports.',
      'Run the migrations first:',
      '  npm run migrate -- --to latest',
      'security, auth',
    ]);
  });

  it('show readable text around the hit, hits marked, no field names', () => {
    expect(readableSnippet(sources, ['session'])).toBe('Never log [session] tokens or API keys.');
    expect(readableSnippet(sources, ['export'])).toBe('Prefer named [exports].');
    const s = readableSnippet(sources, ['migr']);
    expect(s).toBe('Run the [migrations] first:');
    for (const noise of ['gotcha', 'agents-md', 'convention', 'section', '.mdc']) expect(readableSnippet(sources, ['session', 'export', 'migr']), noise).not.toContain(noise);
  });

  it('prefix and case/diacritic folding like FTS5 unicode61 remove_diacritics 2', () => {
    expect(readableSnippet(['Le café est fermé le LUNDI.'], ['cafe', 'lun'])).toBe('Le [café] est fermé le [LUNDI].');
  });

  it('long texts: a window of 16 words around the first hit, with ellipses', () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
    words[20] = 'needle';
    const s = readableSnippet([words.join(' ')], ['needle']);
    expect(s).toBe('…w16 w17 w18 w19 [needle] w21 w22 w23 w24 w25 w26 w27 w28 w29 w30 w31…');
  });

  it('name-only matches fall back to the start of the description, unmarked', () => {
    expect(readableSnippet(sources, ['demo'])).toBe('Context from AGENTS.md');
    expect(readableSnippet([], ['x'])).toBe('');
  });

  it('text that is not in the gate format is kept as it is', () => {
    expect(snippetSources('JWT secrets rotate every 24h', '@a/b', '', [])).toEqual(['JWT secrets rotate every 24h']);
    expect(snippetSources('rule of thumb: keep it short', '@a/b', '', [])).toEqual(['rule of thumb: keep it short']);
  });
});

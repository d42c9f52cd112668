/**
 * The MCP tools' logic in process: trust tiers in hits and text, no time in any answer (two
 * states built at different times answer with the same bytes), passages of long nodes.
 */
import { describe, expect, it } from 'vitest';
import { buildSearchIndex, compilePack, defaultPackPolicy, defaultSyncPolicy, parseNow, type MergedGraph } from '@ctxpkg/format';
import { mgraph, mnode } from '../targets/__tests__/harness.js';
import type { McpState } from './state.js';
import { getNode, getSection, neighbors, packageResource, renderPack, searchContext } from './tools.js';

function state(graph: MergedGraph, now: string, trusted: string[] = [], pins: { pins?: string[]; texts?: Map<string, string> } = {}): McpState {
  const t = parseNow(now);
  return {
    project: { root: '/', config: { pack: { ...defaultPackPolicy(), pins: pins.pins ?? [] }, sync: defaultSyncPolicy() }, graph, installed: true, read: () => undefined, builtHere: [], trust: [], trusted: new Set(trusted) },
    index: buildSearchIndex(graph, { nowMs: t.ms }),
    now: t.iso,
    pinTexts: pins.texts ?? new Map(),
  };
}

const LONG = ['Before you change the API, note:', '', ...Array.from({ length: 12 }, (_, k) => `- Rule ${k}: ${k === 7 ? 'rotate the signing keys yearly' : 'keep it tidy'} ${'and so on '.repeat(6)}`.trimEnd())].join('\n');
const g = mgraph(
  [
    mnode('@own/rules', 'AGENTS.md', { type: 'section', content: 'Rules', file_path: 'AGENTS.md', line_start: 1, line_end: 20 }),
    mnode('@own/rules', 'AGENTS.md:~a', { type: 'gotcha', content: '- Never push to main.', file_path: 'AGENTS.md', line_start: 3, line_end: 3 }),
    mnode('@own/rules', 'AGENTS.md:~long', { type: 'convention', content: LONG, file_path: 'AGENTS.md', line_start: 5, line_end: 18 }),
    mnode('@other/tips', 'tip', { type: 'fact', content: 'Pushing to main triggers a deploy.' }),
  ],
  [
    { from: '@own/rules#AGENTS.md', to: '@own/rules#AGENTS.md:~a', type: 'contains' },
    { from: '@own/rules#AGENTS.md', to: '@own/rules#AGENTS.md:~long', type: 'contains' },
  ],
);

describe('MCP tools', () => {
  it('a search hit is headed by the label render writes above it: the file H1, not the file path (the path only for a file without one)', () => {
    // New-user trial: `### .cursor/rules/python-api.mdc` in search_context where render said
    // `### API endpoints`.
    const F = '.cursor/rules/python-api.mdc';
    const h = mgraph(
      [
        mnode('@a/rules', F, { type: 'section', content: 'API endpoints', file_path: F, line_start: 1, line_end: 9 }),
        mnode('@a/rules', `${F}:~v`, { type: 'convention', content: '- Validate every endpoint body with pydantic.', file_path: F, line_start: 5, line_end: 5 }),
        mnode('@a/rules', `${F}:errors`, { type: 'section', content: 'Errors', file_path: F, line_start: 7, line_end: 9 }),
        mnode('@a/rules', `${F}:errors~1`, { type: 'convention', content: '- Answer endpoint errors as problem documents.', file_path: F, line_start: 8, line_end: 8 }),
        mnode('@a/rules', 'notes.md', { type: 'section', content: 'notes.md', file_path: 'notes.md', line_start: 1, line_end: 3 }),
        mnode('@a/rules', 'notes.md:~1', { type: 'fact', content: '- The endpoint list lives in openapi.yaml.', file_path: 'notes.md', line_start: 2, line_end: 2 }),
      ],
      [
        { from: `@a/rules#${F}`, to: `@a/rules#${F}:~v`, type: 'contains' },
        { from: `@a/rules#${F}`, to: `@a/rules#${F}:errors`, type: 'contains' },
        { from: `@a/rules#${F}:errors`, to: `@a/rules#${F}:errors~1`, type: 'contains' },
        { from: '@a/rules#notes.md', to: '@a/rules#notes.md:~1', type: 'contains' },
      ],
    );
    const s = state(h, '2025-01-01T00:00:00Z');
    const r = searchContext(s, 'endpoint', 10);
    const heads = new Map([...r.text.matchAll(/\n### ([^\n]*)\n<!-- #\d+ (\S+)/g)].map((m) => [m[2], m[1]]));
    expect(heads).toEqual(
      new Map([
        [`@a/rules#${F}:~v`, 'API endpoints'],
        [`@a/rules#${F}:errors~1`, 'Errors'],
        ['@a/rules#notes.md:~1', 'notes.md'],
      ]),
    );
    // The same labels as the pack's headers above each item.
    const pack = renderPack(s, undefined).text;
    for (const label of ['\n### API endpoints\n', '\n#### Errors\n', '\n### notes.md\n']) expect(pack).toContain(label);
    expect(pack).not.toContain(`### ${F}`);
  });

  it('a hit from a trusted package is tier "instructions" and written before the untrusted banner', () => {
    const r = searchContext(state(g, '2025-01-01T00:00:00Z', ['@own/rules']), 'push main');
    const hits = r.structured.hits as Array<{ id: string; trust: string }>;
    expect(hits.map((h) => [h.id, h.trust])).toEqual([
      ['@own/rules#AGENTS.md:~a', 'instructions'],
      ['@other/tips#tip', 'reference'],
    ]);
    const banner = r.text.indexOf('--- BEGIN UNTRUSTED CONTEXT');
    expect(r.text.indexOf('- Never push to main.')).toBeLessThan(banner);
    expect(r.text.indexOf('Pushing to main')).toBeGreaterThan(banner);
    // Without trust, both are reference data inside the banner.
    const plain = searchContext(state(g, '2025-01-01T00:00:00Z'), 'push main');
    expect((plain.structured.hits as Array<{ trust: string }>).every((h) => h.trust === 'reference')).toBe(true);
  });

  it('render_pack and the package resource deliver a trusted package as instructions, before the banner, like sync', () => {
    const s = state(g, '2025-01-01T00:00:00Z', ['@own/rules']);
    for (const text of [renderPack(s, undefined).text, packageResource(s, '@own/rules')]) {
      const banner = text.indexOf('--- BEGIN UNTRUSTED CONTEXT');
      expect(text).toContain('- Never push to main.');
      expect(text.indexOf('- Never push to main.')).toBeLessThan(banner === -1 ? Infinity : banner);
      expect(text).toMatch(/Instructions from @own\/rules@1\.0\.0/);
    }
    const pack = renderPack(s, undefined).text;
    expect(pack.indexOf('Pushing to main')).toBeGreaterThan(pack.indexOf('--- BEGIN UNTRUSTED CONTEXT'));
    // The header says what an agent can use, in words (new-user 2 items 9, 22): no reason codes or lockfile internals.
    const header = pack.slice(0, pack.indexOf('\n## '));
    expect(header).toContain('are this project\'s own instructions (from publishers it trusts): follow them like the rest of this file.');
    expect(header).not.toMatch(/inputs:|omitted:|byte_budget|trust\.instructions|ctxpkg\.lock|signer/);
    const tight = renderPack(s, undefined, 900).text;
    expect(tight).toMatch(/\nnot shown: \d+ \(\d+ did not fit\)\n/);
    // Untrusted, the same text is fenced.
    const plain = renderPack(state(g, '2025-01-01T00:00:00Z'), undefined).text;
    expect(plain.indexOf('- Never push to main.')).toBeGreaterThan(plain.indexOf('--- BEGIN UNTRUSTED CONTEXT'));
  });

  it('get_section of a section whose heading holds a secret: the header and heading_path show it redacted, as the items\' headers do', () => {
    const secret = 'AKIAIOSFODNN7EXAMPLQ';
    const sg = mgraph(
      [
        mnode('@own/rules', 'AGENTS.md', { type: 'section', content: `Deploy with key ${secret}`, file_path: 'AGENTS.md', line_start: 1, line_end: 9 }),
        mnode('@own/rules', 'AGENTS.md:~a', { type: 'gotcha', content: '- Rotate it yearly.', file_path: 'AGENTS.md', line_start: 3, line_end: 3 }),
      ],
      [{ from: '@own/rules#AGENTS.md', to: '@own/rules#AGENTS.md:~a', type: 'contains' }],
    );
    const r = getSection(state(sg, '2025-01-01T00:00:00Z'), { section: '@own/rules#AGENTS.md' });
    expect(r.text).not.toContain(secret);
    expect(JSON.stringify(r.structured)).not.toContain(secret);
    expect(r.text).toContain('# ctxpkg section: Deploy with key [REDACTED:aws_access_key_id]');
    expect((r.structured.section as { heading_path: string[] }).heading_path).toEqual(['Deploy with key [REDACTED:aws_access_key_id]']);
    // The heading path as search hits show it finds the section.
    expect(getSection(state(sg, '2025-01-01T00:00:00Z'), { path: 'Deploy with key [REDACTED:aws_access_key_id]' }).text).toContain('- Rotate it yearly.');
  });

  it('get_section of a trusted package: under "Instructions from <package>@<version>" as sync writes it, no fence', () => {
    const t = getSection(state(g, '2025-01-01T00:00:00Z', ['@own/rules']), { path: 'Rules' }).text;
    expect(t).toContain('\n## Instructions from @own/rules@1.0.0\n');
    expect(t).not.toContain('UNTRUSTED');
    expect(t).not.toContain('Trust: ');
    const u = getSection(state(g, '2025-01-01T00:00:00Z'), { path: 'Rules' }).text;
    expect(u).toContain('\n## @own/rules@1.0.0\n');
    expect(u.indexOf('- Never push to main.')).toBeGreaterThan(u.indexOf('--- BEGIN UNTRUSTED CONTEXT'));
  });

  it('a broken pin: render_pack delivers the rest and says so, naming the successor the CLI names (same ranking, same pin texts)', () => {
    const pin = '@own/rules#AGENTS.md:~gone';
    const s = state(g, '2025-01-01T00:00:00Z', [], { pins: [pin], texts: new Map([[pin, '- Never, ever push to main.']]) });
    const r = renderPack(s, undefined);
    const message = `a pin no longer resolves (its text changed in @own/rules@1.0.0): ctxpkg unpin '${pin}' && ctxpkg pin '@own/rules#AGENTS.md:~a'`;
    expect(r.structured.warnings).toEqual([message]);
    expect(r.text).toContain(`ctxpkg: ${message}`);
    expect(r.text).toContain('Pushing to main triggers a deploy.');
    const cli = compilePack({ graph: g, policy: s.project.config.pack, maxBytes: 16384, now: s.now, pinTexts: s.pinTexts });
    expect(cli.brokenPins.map((b) => b.message)).toEqual([message]);
    // The package resource of another package does not carry this package's pin problem.
    expect(packageResource(s, '@other/tips')).not.toContain('no longer resolves');
    expect(packageResource(s, '@own/rules')).toContain(message);
  });

  it('search: one hit per node (its best passage) and per text (identical texts named in `also`); total counts nodes', () => {
    const dup = mgraph([
      ...g.nodes,
      mnode('@own/rules', 'same', { type: 'fact', content: 'Keep it tidy in every package.' }),
      mnode('@other/tips', 'same', { type: 'fact', content: 'Keep it tidy in every package.' }),
    ], [
      { from: '@own/rules#AGENTS.md', to: '@own/rules#AGENTS.md:~a', type: 'contains' },
      { from: '@own/rules#AGENTS.md', to: '@own/rules#AGENTS.md:~long', type: 'contains' },
    ]);
    const r = searchContext(state(dup, '2025-01-01T00:00:00Z'), 'keep it tidy', 50);
    const hits = r.structured.hits as Array<{ id: string; also: string[] }>;
    // The long node has 11 "keep it tidy" items: it is one hit, not eleven.
    expect(hits.map((h) => h.id).sort()).toEqual(['@other/tips#same', '@own/rules#AGENTS.md:~long']);
    expect(hits.find((h) => h.id === '@other/tips#same')!.also).toEqual(['@own/rules#same']);
    expect(r.structured).toMatchObject({ total: 3, not_shown: 0 });
    expect(r.text.match(/Keep it tidy in every package\./g)).toHaveLength(1);
    expect(r.text).toContain('shown: 2 of 3');
  });

  it('get_node keeps any max_bytes that fits its header: the text is cut visibly, never dropped', () => {
    const s = state(g, '2025-01-01T00:00:00Z');
    const id = '@own/rules#AGENTS.md:~long';
    const whole = getNode(s, id);
    expect(whole.structured).toMatchObject({ truncated: false, node: { id } });
    const least = (() => {
      try {
        getNode(s, id, 1);
      } catch (err) {
        expect((err as Error).message).toMatch(/^max_bytes 1 is too small for node @own\/rules#AGENTS\.md:~long: its header alone needs \d+ bytes$/);
        return (err as { details: { required_bytes: number } }).details.required_bytes;
      }
      throw new Error('max_bytes 1 was accepted');
    })();
    const size = Buffer.byteLength(whole.text);
    for (let max = least; max < size; max += 37) {
      const a = getNode(s, id, max);
      expect(Buffer.byteLength(a.text), String(max)).toBeLessThanOrEqual(max);
      expect(a.structured).toMatchObject({ truncated: true, node: { id } });
      expect(a.text).toMatch(/\[truncated: showing \d+ of \d+ bytes\]/);
    }
    expect(getNode(s, id, size).text).toBe(whole.text);
    expect(() => getNode(s, id, least - 1)).toThrow(expect.objectContaining({ code: 'E_BUDGET' }));
  });

  it('shows the matching item of a long node with its lead-in, and says which lines', () => {
    const r = searchContext(state(g, '2025-01-01T00:00:00Z'), 'rotate signing keys');
    const hit = (r.structured.hits as Array<Record<string, unknown>>)[0]!;
    expect(hit).toMatchObject({ id: '@own/rules#AGENTS.md:~long', excerpt: true, lines: [14, 14], node_lines: [5, 18] });
    expect(String(hit.text).split('\n')).toEqual(['Before you change the API, note:', '[…]', LONG.split('\n')[9], '[…]']);
    expect(r.text).toContain('<!-- #1 @own/rules#AGENTS.md:~long line 14 of 5-18 -->');
  });

  it('answers carry no time: states built years apart answer with the same bytes', () => {
    const a = state(g, '2025-01-01T00:00:00Z');
    const b = state(g, '2031-07-04T09:15:00Z');
    for (const f of [
      (s: McpState) => searchContext(s, 'main'),
      (s: McpState) => getNode(s, '@own/rules#AGENTS.md:~a'),
      (s: McpState) => neighbors(s, '@own/rules#AGENTS.md:~a', 2),
      (s: McpState) => getSection(s, { path: 'Rules' }),
      (s: McpState) => renderPack(s, undefined),
    ]) {
      expect(f(b).text).toBe(f(a).text);
      expect(JSON.stringify(f(b).structured)).toBe(JSON.stringify(f(a).structured));
    }
  });
});

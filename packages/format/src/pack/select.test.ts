/**
 * Budget selection on small budgets (spec/pack.md §4): greedy skip, never greedy stop; the
 * renderers' block lower bounds; the E_BUDGET message naming the smallest budget that works;
 * the frame of a pinned-only pack (§8: selection line, omissions among the pinned only).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCtxpkgError } from '../errors.js';
import { compilePack, setNeedsShortcuts } from './compile.js';
import { LazyOrder, MergedOrder } from './lazy-order.js';
import { renderJson } from './render-json.js';
import { MAX_COMMENT_PATH, renderMarkdown } from './render-md.js';
import type { RenderItem } from './render.js';
import { selectWithinBudget, setSelectEarlyStop, setWalkRebuildFrom, setWalkScanFrom, type OrderedSequence } from './select.js';
import { SECTIONS, type SectionName } from './types.js';
import { byteLen, graph, node, NOW } from './__tests__/graph.js';

describe('selection: greedy skip, not greedy stop', () => {
  it('300 better-ranked blocks too large for the budget do not stop a smaller later one', () => {
    // 300 gotchas (rank 0, first in the order) of 3000 bytes each, then one small gotcha (same section, last in the order).
    const nodes = Array.from({ length: 300 }, (_, i) => node('@a/big', `g${String(i).padStart(3, '0')}`, { type: 'gotcha', content: 'x'.repeat(3000) }));
    nodes.push(node('@z/small', 'fact', { type: 'gotcha', content: 'Small but useful.' }));
    const p = compilePack({ graph: graph(nodes), maxBytes: 1500, now: NOW });
    expect(p.receipt.delivered.map((d) => d.id)).toEqual(['@z/small#fact']);
    expect(p.bytes).toBeLessThanOrEqual(1500);
    expect(p.receipt.counts.by_reason.byte_budget).toBe(300);
  });

  it('on any small budget, no omitted candidate could still have been added', () => {
    const nodes = Array.from({ length: 40 }, (_, i) =>
      node(`@p/${i % 3}`, `n${i}`, { type: ['gotcha', 'convention', 'procedure', 'fact'][i % 4] as string, content: 'word '.repeat(5 + ((i * 37) % 90)) }),
    );
    const g = graph(nodes);
    const full = compilePack({ graph: g, maxBytes: 1 << 20, now: NOW });
    // Each block's exact size (no scopes or sections in this graph), and its package header.
    const alone = new Map<string, number>();
    const header = new Map<string, number>();
    for (const n of nodes) {
      const it: RenderItem = { ...n, scope: [], sections: [], seq: 0, flags: [], disputed_with: [], section: 'facts' };
      alone.set(n.id, byteLen(renderMarkdown.block(it)));
      header.set(n.id, byteLen(renderMarkdown.groups(it).map((g) => g.text).join('')));
    }
    expect(full.receipt.omissions).toEqual([]);
    for (const max of [900, 1200, 1500, 2000, 3000, 4500]) {
      const p = compilePack({ graph: g, maxBytes: max, now: NOW });
      const left = max - p.bytes;
      const opened = new Set(p.receipt.delivered.map((d) => d.package));
      // The cost of an omitted node: its block, plus its package header when no node of its package is in the pack.
      const cost = (o: { id: string; package: string }): number => (alone.get(o.id) as number) + (opened.has(o.package) ? 0 : (header.get(o.id) as number));
      const smallest = Math.min(...p.receipt.omissions.map(cost));
      // The smallest omitted block does not fit what is left, even if the omission summary
      // shrank by two bytes when it was taken.
      expect(smallest + 0, `budget ${max}`).toBeGreaterThan(left + 2);
    }
  });
});

describe('renderers: block lower bounds', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\r', '\n', '\r\n', '~', '`', '\u200b', '\u0007', ' ', 'UNTRUSTED CONTEXT') as fc.Arbitrary<string>, maxLength: 60 });
  const item = fc.record({
    id: text,
    package: text,
    version: text,
    local_id: text,
    type: text,
    content: text,
    file_path: fc.option(text, { nil: undefined }),
    line_start: fc.option(fc.integer({ min: 1, max: 9999 }), { nil: undefined }),
    scope: fc.array(text, { maxLength: 3 }),
    sections: fc.array(fc.record({ id: text, title: text, scope: fc.array(text, { maxLength: 2 }) }), { maxLength: 3 }),
    flags: fc.subarray(['stale', 'absent', 'disputed']),
    disputed_with: fc.array(text, { maxLength: 2 }),
    section: fc.constantFrom('pinned', 'gotchas', 'conventions', 'procedures', 'facts'),
  });
  for (const r of [renderMarkdown, renderJson]) {
    it(`${r.format}: the bound never exceeds the rendered block, with or without flags`, () => {
      fc.assert(
        fc.property(item, (raw) => {
          const it = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)) as unknown as RenderItem;
          expect(r.blockLowerBound({ ...it, flags: [], disputed_with: [] })).toBeLessThanOrEqual(byteLen(r.block(it)));
        }),
        { numRuns: 500 },
      );
    });
  }

  it('md: blockLowerBoundOf (content, file path and heading path only) equals blockLowerBound', () => {
    // Starts that are list markers or nearly (1 … 11 digits, `.`/`)`, `-*+`, then space, tab, end or not),
    // CR/LF mixes, non-ASCII; file paths empty, absent, long; sections of the same file with and without lines.
    const start = fc.constantFrom('', '-', '*', '+', '- ', '*\t', '+x', '1.', '1. ', '12)', '123456789. ', '1234567890. ', '12345678901) ', '9)\t', '0.', '1.x', '.', ')', ' - ', '\r\n- ', '١. ');
    const body = fc.string({ unit: fc.constantFrom('a', 'é', '😀', '\r', '\n', '\r\n', ' ', '-', '1', '.') as fc.Arbitrary<string>, maxLength: 30 });
    const path = fc.constantFrom(undefined, '', 'AGENTS.md', 'docs/a.md', 'p'.repeat(230));
    const section = fc.record({ id: fc.constantFrom('s1', 's2'), title: fc.constant('T'), scope: fc.constant([] as string[]), file_path: fc.constantFrom(undefined, 'AGENTS.md', 'docs/a.md'), line_start: fc.constantFrom(undefined, 1, 7) });
    const boundOf = renderMarkdown.blockLowerBoundOf as NonNullable<typeof renderMarkdown.blockLowerBoundOf>;
    fc.assert(
      fc.property(start, body, path, fc.array(section, { maxLength: 3 }), (st, b, fp, secs) => {
        const sections = secs.map((x) => Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined))) as unknown as RenderItem['sections'];
        const content = st + b;
        const it: RenderItem = { id: '@a/b#x', package: '@a/b', version: '1.0.0', local_id: 'x', type: 'fact', content, ...(fp !== undefined ? { file_path: fp } : {}), scope: [], sections, seq: 0, flags: [], disputed_with: [], section: 'facts' };
        expect(boundOf(content, fp, sections)).toBe(renderMarkdown.blockLowerBound(it));
        // Asked again for the same text without the heading path (the compiler's bare form).
        expect(boundOf(content, fp, [])).toBe(renderMarkdown.blockLowerBound({ ...it, sections: [] }));
      }),
      { numRuns: 3000 },
    );
  });

  it('md: a long file path is cut in its provenance comment, and the bound never exceeds the block', () => {
    // A path of dashes is 7× as long once `--` is written `-\u002d`: the comment was cut before
    // that (a 10 KB path gave a 1.4 KB comment where the bound counted 200; one such rule set
    // overran file_max_bytes and stopped every sync). Paths long and short, with `@` imports,
    // invisible characters, astral characters.
    const unit = fc.constantFrom('-', '--', '---', 'a', '@', ' @x/y', 'é', '😀', '\u200b', '`', '/', '.') as fc.Arbitrary<string>;
    const at = (fp: string, line?: number): RenderItem => ({ id: '@a/b#x', package: '@a/b', version: '1.0.0', local_id: 'x', type: 'fact', content: 'Text.', file_path: fp, ...(line !== undefined ? { line_start: line, line_end: line + 2 } : {}), scope: [], sections: [], seq: 0, flags: [], disputed_with: [], section: 'facts' });
    const inner = (block: string): string => {
      const line = block.split('\n').find((l) => l.startsWith('<!-- ')) as string;
      expect(line.endsWith(' -->')).toBe(true);
      return line.slice(5, -4);
    };
    fc.assert(
      fc.property(fc.string({ unit, minLength: 1, maxLength: 2000 }), fc.option(fc.integer({ min: 1, max: 99999 }), { nil: undefined }), (fp, line) => {
        const it = at(fp, line);
        const block = renderMarkdown.block(it);
        expect(renderMarkdown.blockLowerBound(it)).toBeLessThanOrEqual(byteLen(block));
        expect(inner(block)).not.toContain('--');
      }),
      { numRuns: 500 },
    );
    for (const fp of ['-'.repeat(10_000), `rules/a${'-'.repeat(10_000)}b.md`, '.-'.repeat(5_000), 'x'.repeat(10_000)]) {
      const it = at(fp, 1);
      const block = renderMarkdown.block(it);
      const shown = inner(block);
      expect(shown.length).toBeLessThanOrEqual(MAX_COMMENT_PATH + ':1-3'.length);
      expect(shown.endsWith('…:1-3')).toBe(true);
      expect(renderMarkdown.blockLowerBound(it)).toBeLessThanOrEqual(byteLen(block));
      // The bound counts the path in full up to the cap: it is within the line numbers of the block.
      expect(renderMarkdown.blockLowerBound(it)).toBeGreaterThanOrEqual(byteLen(block) - ':1-3'.length - 2 * '…'.length);
    }
  });

  it('md: the bound is tight for plain ASCII blocks', () => {
    const it: RenderItem = { id: '@a/b#x', package: '@a/b', version: '1.0.0', local_id: 'x', type: 'fact', content: 'Plain text.', file_path: 'AGENTS.md', line_start: 3, scope: [], sections: [{ id: '@a/b#AGENTS.md:top', title: 'Top', scope: [] }], seq: 0, flags: [], disputed_with: [], section: 'facts' };
    const exact = byteLen(renderMarkdown.block(it));
    // Only the line number of its own provenance comment (":3") is not counted.
    expect(renderMarkdown.blockLowerBound(it)).toBeLessThanOrEqual(exact);
    expect(renderMarkdown.blockLowerBound(it)).toBeGreaterThanOrEqual(exact - 2);
  });
});

describe('E_BUDGET names the smallest budget that works', () => {
  const g = graph([node('@a/p', 'one', { type: 'gotcha' }), node('@a/p', 'two')]);
  it('frame alone: the message and details give a budget that then works', () => {
    let err: unknown;
    try {
      compilePack({ graph: g, maxBytes: 30, now: NOW });
    } catch (e) {
      err = e;
    }
    const e = err as { code: string; message: string; details: { required_bytes: number } };
    expect(e.code).toBe('E_BUDGET');
    const need = e.details.required_bytes;
    expect(e.message).toContain(`the smallest budget that works is ${need} bytes`);
    expect(e.message).toContain('frame alone');
    expect(compilePack({ graph: g, maxBytes: need, now: NOW }).bytes).toBeLessThanOrEqual(need);
    expect(() => compilePack({ graph: g, maxBytes: need - 1, now: NOW })).toThrow(expect.objectContaining({ code: 'E_BUDGET' }));
  });

  it('with pins: counts the pinned nodes', () => {
    expect(() => compilePack({ graph: g, maxBytes: 300, now: NOW, policy: { pins: ['@a/p'] } })).toThrow(/its 2 pinned nodes need \d+ bytes/);
  });
});

describe('pinned-only packs (the AGENTS.md block) say what they selected', () => {
  const g = graph([node('@a/p', 'g', { type: 'gotcha' }), node('@a/p', 'c', { type: 'convention' }), node('@b/q', 'f'), node('@a/p', 's', { type: 'section', content: 'S' })]);

  it('nothing pinned: "0 of 3 items pinned", and omitted does not claim nothing was left out of the installed set', () => {
    const p = compilePack({ graph: g, maxBytes: 4096, now: NOW, pinnedOnly: true });
    expect(p.text).toContain('\nselection: pinned items only — 0 of 3 items pinned (pin with "context.pins" in ctxpkg.json); the other 3 are not in this block\n');
    expect(p.text).toContain('\nnot shown: none of the 0 pinned items\n');
    expect(p.text).not.toMatch(/^not shown: none$/m);
    expect(p.receipt.selection).toMatchObject({ mode: 'pinned', not_selected: 3 });
  });

  it('some pinned: counts them; JSON carries the same selection', () => {
    const policy = { pins: ['@a/p#g'] };
    const md = compilePack({ graph: g, maxBytes: 4096, now: NOW, pinnedOnly: true, policy });
    expect(md.text).toContain('selection: pinned items only — 1 of 3 items pinned');
    expect(md.text).toContain('the other 2 are not in this block');
    const json = JSON.parse(compilePack({ graph: g, maxBytes: 4096, now: NOW, pinnedOnly: true, policy, format: 'json' }).text);
    expect(json.selection).toMatchObject({ mode: 'pinned', items: 3, pinned: 1, not_selected: 2 });
    expect(json.omitted).toMatchObject({ total: 0, among: 'pinned' });
  });

  it('mode all prints no selection line', () => {
    const p = compilePack({ graph: g, maxBytes: 4096, now: NOW });
    expect(p.text).not.toContain('selection:');
    expect(p.text).toContain('\nnot shown: none\n');
  });
});

type Row = { section: SectionName; pkg: number; size: number; slack: number; groups: readonly string[]; note?: number | undefined; after?: number | undefined; continuation: boolean; rank: number };

describe('early stop and bounded walk (select.ts): the same selection as reading every sequence to its end', () => {
  const cand = fc.record({
    section: fc.constantFrom(...SECTIONS),
    pkg: fc.nat({ max: 3 }),
    size: fc.integer({ min: 1, max: 60 }),
    slack: fc.constantFrom(0, 0, 0, 3, 20),
    groups: fc.constantFrom<readonly string[]>([], [], [], ['g1'], ['g2', 'g3'], ['g1', 'g4']),
    note: fc.option(fc.nat({ max: 4 }), { nil: undefined }),
    after: fc.option(fc.nat({ max: 59 }), { nil: undefined }),
    continuation: fc.boolean(),
    rank: fc.nat({ max: 1000 }),
  });
  // Note bytes as the Markdown renderer's (grow with the count, refunded when complete) or arbitrary
  // (0 for none and all, anything between): the stop must be exact for any of them.
  // 'falling': notes that shrink steeply as members are taken, so a take can raise what the rest
  // may cost (the bounded walk must still pass over members it left behind).
  const noteKinds = fc.constantFrom('md', 'odd', 'falling');
  let hideMembers = false;
  it('selected flags and total are identical, for any budget, notes, chains, groups and packages', () => {
    fc.assert(
      fc.property(fc.array(cand, { minLength: 1, maxLength: 60 }), fc.integer({ min: 40, max: 1500 }), noteKinds, fc.boolean(), fc.nat({ max: 10 }), (rows, maxBytes, kind, withFocus, loosen) => {
        const n = rows.length;
        const R = (h: number): Row => rows[h] as Row;
        const pinnedSet = new Set(rows.flatMap((r, h) => (r.section === 'pinned' ? [h] : [])));
        const compare = (a: number, b: number): number => R(a).rank - R(b).rank || a - b;
        const members = new Map<string, number>();
        rows.forEach((r) => r.note !== undefined && members.set(`n${r.note}`, (members.get(`n${r.note}`) ?? 0) + 1));
        const noteBytes = (key: string, taken: number, of: number): number => {
          if (taken === 0 || taken === of) return 0;
          if (kind === 'falling') return Math.max(1, 120 - 45 * taken);
          return kind === 'md' ? 40 + String(taken).length + String(of).length : ((taken * 37 + key.length * 11) % 90) + 1;
        };
        const minOf = (hs: number[]): number => Math.max(0, Math.min(...hs.map((h) => R(h).size - R(h).slack)) - loosen);
        const seq = (hs: number[]): OrderedSequence => {
          const l = new LazyOrder(Int32Array.from(hs), compare, minOf(hs));
          return hideMembers ? { length: l.length, at: (k) => l.at(k), minBound: l.minBound as number } : l;
        };
        const bySection = (hs: number[]): Map<SectionName, OrderedSequence> => {
          const m = new Map<SectionName, OrderedSequence>();
          for (const s of SECTIONS) {
            const of = hs.filter((h) => R(h).section === s);
            if (s !== 'pinned' && of.length > 0) m.set(s, seq(of));
          }
          return m;
        };
        const run = (): ReturnType<typeof selectWithinBudget> | string => {
          const free = rows.map((_, h) => h).filter((h) => !pinnedSet.has(h));
          const pkgs = [0, 1, 2, 3].map((p) => free.filter((h) => R(h).pkg === p)).filter((hs) => hs.length > 0);
          try {
            return selectWithinBudget(
              {
                count: n,
                pinned: [...pinnedSet].sort(compare),
                ...(withFocus && free.length > 0 ? { focused: seq(free.filter((h) => h % 3 === 0).length > 0 ? free.filter((h) => h % 3 === 0) : free) } : {}),
                sections: bySection(free),
                compare,
                sectionOf: (h) => R(h).section,
                groupsAt: (h) => R(h).groups.map((key) => ({ key, bytes: key.length * 7 })),
                sizeAt: (h) => R(h).size,
                lowerBoundAt: (h) => R(h).size - R(h).slack,
                after: (h) => {
                  const a = R(h).after;
                  return a !== undefined && a < h ? a : -1;
                },
                continuation: (h) => R(h).continuation && h > 0,
                noteAt: (h) => {
                  const k = R(h).note;
                  return k === undefined ? undefined : { key: `n${k}`, members: members.get(`n${k}`) as number };
                },
                noteBytes,
                packages: { sequences: pkgs.map((hs) => ({ bySection: bySection(hs), all: new MergedOrder([...bySection(hs).values()], compare) })), need: pkgs.map((hs) => hs.length * 50) },
              },
              { maxBytes, separatorSize: 1, frameSize: (nb) => 30 + String(nb).length, weights: { pinned: 0, gotchas: 3, conventions: 3, procedures: 2, facts: 2 }, minBlockBytes: 1 },
            );
          } catch (e) {
            if (isCtxpkgError(e)) return e.code;
            throw e;
          }
        };
        const was = setSelectEarlyStop(false);
        const full = run();
        setSelectEarlyStop(true);
        // Sequences listing their members: the bounded walk (select.ts), its heap rebuilt whenever
        // it may be (from size 1) and never; without members: read in order.
        const scanWas = setWalkScanFrom(Number.POSITIVE_INFINITY);
        const rebuildWas = setWalkRebuildFrom(1);
        const early = run();
        setWalkRebuildFrom(Number.POSITIVE_INFINITY);
        const unbuilt = run();
        setWalkRebuildFrom(rebuildWas);
        // Reading in order when any member fits the pass's first threshold, or a tenth, a quarter, half, three quarters of them.
        setWalkScanFrom(0);
        const scanned = run();
        const switched = [0.1, 0.25, 0.5, 0.75].map((share) => {
          setWalkScanFrom(share);
          return run();
        });
        setWalkScanFrom(scanWas);
        expect(unbuilt).toEqual(full);
        expect(scanned).toEqual(full);
        for (const s of switched) expect(s).toEqual(full);
        hideMembers = true;
        const ordered = run();
        hideMembers = false;
        setSelectEarlyStop(was);
        expect(early).toEqual(full);
        expect(ordered).toEqual(full);
      }),
      { numRuns: 1500 },
    );
  });
});

describe('bounded walk (select.ts): members passed over stay passed over', () => {
  // Notes that shrink steeply as members are taken: taking one can raise the bound a member may
  // have and still fit, and a member the walk passed over earlier (its bound did not fit then)
  // must not be read again — the full walk read it once, at its place; and one a rebuilt heap
  // dropped must come back. The examples are counterexamples this property found when the walk
  // did not do one or the other.
  it('same picks as reading every sequence to its end', () => {
    const rowsArb = fc.array(fc.record({ size: fc.integer({ min: 1, max: 60 }), note: fc.boolean(), sec: fc.constantFrom<SectionName>('gotchas', 'facts') }), { minLength: 2, maxLength: 8 });
    fc.assert(
      fc.property(rowsArb, fc.integer({ min: 30, max: 300 }), (rows, maxBytes) => {
        const compare = (a: number, b: number): number => a - b;
        const members = rows.filter((r) => r.note).length;
        const run = (): ReturnType<typeof selectWithinBudget> | string => {
          const sections = new Map<SectionName, OrderedSequence>();
          for (const s of SECTIONS) {
            const hs = rows.map((_, h) => h).filter((h) => rows[h]!.sec === s);
            if (hs.length > 0) sections.set(s, new LazyOrder(Int32Array.from(hs), compare, Math.min(...hs.map((h) => rows[h]!.size))));
          }
          try {
            return selectWithinBudget(
              {
                count: rows.length,
                pinned: [],
                sections,
                compare,
                sectionOf: (h) => rows[h]!.sec,
                groupsAt: () => [],
                sizeAt: (h) => rows[h]!.size,
                lowerBoundAt: (h) => rows[h]!.size,
                noteAt: (h) => (rows[h]!.note ? { key: 'k', members } : undefined),
                noteBytes: (_k, t, of) => (t === 0 || t === of ? 0 : Math.max(1, 120 - 45 * t)),
              },
              { maxBytes, separatorSize: 1, frameSize: () => 10, weights: { pinned: 0, gotchas: 3, conventions: 3, procedures: 2, facts: 2 }, minBlockBytes: 1 },
            );
          } catch (e) {
            if (isCtxpkgError(e)) return e.code;
            throw e;
          }
        };
        const was = setSelectEarlyStop(false);
        const full = run();
        setSelectEarlyStop(true);
        const scanWas = setWalkScanFrom(Number.POSITIVE_INFINITY);
        const walked = run();
        const rebuildWas = setWalkRebuildFrom(1);
        const rebuilt = run();
        setWalkRebuildFrom(rebuildWas);
        // Reading in order when a share of the members fits the pass's first threshold.
        const switched = [0.1, 0.25, 0.5, 0.75].map((share) => {
          setWalkScanFrom(share);
          return run();
        });
        setWalkScanFrom(scanWas);
        setSelectEarlyStop(was);
        expect(walked).toEqual(full);
        expect(rebuilt).toEqual(full);
        for (const s of switched) expect(s).toEqual(full);
      }),
      {
        numRuns: 3000,
        examples: [
          [
            [
              { size: 57, note: false, sec: 'facts' },
              { size: 49, note: true, sec: 'gotchas' },
              { size: 1, note: true, sec: 'facts' },
              { size: 5, note: true, sec: 'gotchas' },
              { size: 1, note: false, sec: 'gotchas' },
              { size: 27, note: false, sec: 'gotchas' },
            ],
            154,
          ],
          // Found when a rebuilt heap did not take back the members it dropped once the bound rose again.
          [
            [
              { size: 47, note: true, sec: 'gotchas' },
              { size: 46, note: false, sec: 'gotchas' },
              { size: 19, note: false, sec: 'facts' },
              { size: 3, note: true, sec: 'gotchas' },
              { size: 55, note: true, sec: 'gotchas' },
              { size: 24, note: false, sec: 'facts' },
              { size: 1, note: false, sec: 'facts' },
              { size: 4, note: false, sec: 'facts' },
            ],
            215,
          ],
        ],
      },
    );
  });
});

/** A random merged graph for the compile-level property below: packages, files, heading sections, list nodes. */
const compileCase = fc.record({
  packages: fc.integer({ min: 1, max: 4 }),
  nodes: fc.array(
    fc.record({
      pkg: fc.nat({ max: 3 }),
      file: fc.constantFrom('AGENTS.md', 'docs/b.md', ''),
      type: fc.constantFrom('gotcha', 'convention', 'procedure', 'fact', 'decision', 'section', 'section'),
      // Prose, list items, CR/LF mixes, non-ASCII; a few long lead-in + list texts (list nodes).
      content: fc.oneof(
        fc.string({ unit: fc.constantFrom('a', 'b ', 'é', '€', '😀', '\r', '\n', '\r\n', '- ', '1. ', '# ', 'security ', 'never ') as fc.Arbitrary<string>, minLength: 1, maxLength: 40 }),
        fc.integer({ min: 2, max: 9 }).map((k) => ['Lead-in:', '', ...Array.from({ length: k }, (_, i) => `- item ${i} ${'x'.repeat(20 + ((i * 13) % 50))}`)].join('\n')),
      ),
      activation: fc.constantFrom(0, 0.5, 1),
      pinned: fc.constantFrom(false, false, false, false, true),
    }),
    { minLength: 1, maxLength: 45 },
  ),
  maxBytes: fc.integer({ min: 200, max: 5000 }),
  trusted: fc.subarray([0, 1, 2, 3]),
  focus: fc.constantFrom(undefined, undefined, undefined, 'security', 'item', 'docs/**'),
  priorities: fc.boolean(),
});

describe('bounded walk (select.ts) and the needs shortcuts (compile.ts): compilePack gives the same pack as reading every sequence to its end without them', () => {
  it('text and receipt identical — packages, files, heading sections, list nodes, pins, focus, priorities, trusted packages', () => {
    fc.assert(
      fc.property(compileCase, (c) => {
        const pkgName = (p: number): string => `@p${p % c.packages}/pkg`;
        const line = new Map<string, number>();
        const section = new Map<string, string>();
        const nodes = c.nodes.map((r, i) => {
          const pkg = pkgName(r.pkg);
          const at = `${pkg}\u0000${r.file}`;
          const l = (line.get(at) ?? 0) + 1 + (i % 3);
          line.set(at, l + 16);
          return node(pkg, `n${i}`, { type: r.type, content: r.content, activation: r.activation, ...(r.file !== '' ? { file_path: r.file, line_start: l, line_end: l + 15 } : {}) });
        });
        // Each node belongs to the heading section last seen in its package and file.
        const edges: Array<{ from: string; to: string; type: string }> = [];
        nodes.forEach((n) => {
          const at = `${n.package}\u0000${n.file_path ?? ''}`;
          if (n.type === 'section') section.set(at, n.id);
          else if (section.has(at)) edges.push({ from: section.get(at) as string, to: n.id, type: 'contains' });
        });
        const g = graph(nodes, edges);
        const pins = nodes.filter((_, i) => (c.nodes[i] as { pinned: boolean }).pinned && nodes[i]!.type !== 'section').map((n) => n.id);
        const run = (): string => {
          try {
            const p = compilePack({
              graph: g,
              maxBytes: c.maxBytes,
              now: NOW,
              policy: { pins, ...(c.priorities ? { priorities: { [pkgName(1)]: 2, [nodes[0]!.id]: -1 } } : {}) },
              trusted: new Set(c.trusted.map(pkgName)),
              ...(c.focus ? { focus: c.focus } : {}),
            });
            return p.text + JSON.stringify(p.receipt);
          } catch (e) {
            if (isCtxpkgError(e)) return e.code;
            throw e;
          }
        };
        const was = setSelectEarlyStop(false);
        const shortcutsWere = setNeedsShortcuts(false);
        const full = run();
        setNeedsShortcuts(true);
        const shortcuts = run();
        setSelectEarlyStop(true);
        const scanWas = setWalkScanFrom(Number.POSITIVE_INFINITY);
        const walked = run();
        const rebuildWas = setWalkRebuildFrom(1);
        const rebuilt = run();
        setWalkRebuildFrom(rebuildWas);
        setWalkScanFrom(0);
        const scanned = run();
        setWalkScanFrom(0.25);
        const switched = run();
        setWalkScanFrom(scanWas);
        setNeedsShortcuts(shortcutsWere);
        setSelectEarlyStop(was);
        // The needs pass's shortcuts (compile.ts), the bounded walk, its rebuilt heap, and reading
        // in order instead of walking (when any member fits, or a quarter of them).
        expect(shortcuts).toBe(full);
        expect(walked).toBe(full);
        expect(rebuilt).toBe(full);
        expect(scanned).toBe(full);
        expect(switched).toBe(full);
      }),
      { numRuns: 400 },
    );
  });
});

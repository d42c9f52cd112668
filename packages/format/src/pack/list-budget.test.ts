/**
 * Budget selection by list items, partial-section notes, force and package fairness
 * (spec/pack.md §4 "List nodes", "Sections in source order", pass 1c; §5 key 3b; §8 "Partial
 * sections"); new-user trial 2 findings 1 and 2.
 */
import { describe, expect, it } from 'vitest';
import { compilePack } from './compile.js';
import { forceOf } from './order.js';
import { listPieces } from './passage.js';
import { waterFill } from './select.js';
import { byteLen, graph, node, NOW } from './__tests__/graph.js';

const BULLETS = Array.from({ length: 12 }, (_, i) => `- Rule number ${i + 1}: keep the code path ${'x'.repeat(60)} tidy.`);
const LIST = ['In the service folder:', '', ...BULLETS].join('\n');

/** One file: a root section holding a long lead-in + list node (lines 3-16) and a short rule after it. */
function listGraph() {
  return graph(
    [
      node('@a/p', 'root', { type: 'section', content: 'Service rules', file_path: 'AGENTS.md', line_start: 1, line_end: 20 }),
      node('@a/p', 'list', { type: 'gotcha', content: LIST, file_path: 'AGENTS.md', line_start: 3, line_end: 16 }),
      node('@a/p', 'after', { type: 'convention', content: 'Use ESM only.', file_path: 'AGENTS.md', line_start: 18, line_end: 18 }),
    ],
    [
      { from: '@a/p#root', to: '@a/p#list', type: 'contains' },
      { from: '@a/p#root', to: '@a/p#after', type: 'contains' },
    ],
  );
}

describe('list nodes are budgeted by their items', () => {
  it('listPieces: lead-in with the first item, then one piece per item, covering every line', () => {
    const pieces = listPieces(LIST) as Array<{ start: number; end: number }>;
    expect(pieces).toHaveLength(12);
    expect(pieces[0]).toEqual({ start: 0, end: 3 });
    expect(pieces[11]).toEqual({ start: 13, end: 14 });
    for (let k = 1; k < pieces.length; k++) expect(pieces[k]!.start).toBe(pieces[k - 1]!.end);
    expect(listPieces('Just a paragraph.\nAnd another line.')).toBeUndefined();
    expect(listPieces('Lead-in:\n\n- only one item')).toBeUndefined();
  });

  it('a long list delivers its lead-in and first items in source order, says how many, and stays within the budget', () => {
    const full = compilePack({ graph: listGraph(), maxBytes: 64 * 1024, now: NOW });
    expect(full.receipt.omissions).toEqual([]);
    for (let max = 700; max < full.bytes; max += 37) {
      const p = compilePack({ graph: listGraph(), maxBytes: max, now: NOW });
      expect(byteLen(p.text)).toBe(p.bytes);
      expect(p.bytes).toBeLessThanOrEqual(max);
      expect(p.receipt.counts.delivered + p.receipt.counts.suppressed).toBe(2);
      const list = p.receipt.delivered.find((d) => d.id === '@a/p#list');
      if (!list) continue;
      // Lead-in first, then a prefix of the bullets, never a later one without the ones above.
      expect(p.text).toContain('In the service folder:\n\n- Rule number 1:');
      const shown = BULLETS.filter((b) => p.text.includes(b)).length;
      expect(BULLETS.slice(0, shown).every((b) => p.text.includes(b))).toBe(true);
      if (shown < 12) {
        expect(list.items).toEqual({ delivered: shown, total: 12 });
        // The section says it is partial, in plain words, right after what it shows.
        const taken = shown + (p.text.includes('Use ESM only.') ? 1 : 0);
        expect(p.text).toContain(`${BULLETS[shown - 1]}\n\n(ctxpkg: ${taken} of 13 items here; the rest: \`ctxpkg render --focus "Service rules"\`)\n`);
      } else expect(list.items).toBeUndefined();
      // Same input, same bytes.
      expect(compilePack({ graph: listGraph(), maxBytes: max, now: NOW }).text).toBe(p.text);
    }
    // The note's command prints the whole section: a focus on its heading, at the render default.
    const rest = compilePack({ graph: listGraph(), maxBytes: 32 * 1024, now: NOW, focus: 'Service rules' });
    expect(rest.receipt.omissions).toEqual([]);
    expect(rest.receipt.delivered.map((d) => d.id)).toEqual(['@a/p#list', '@a/p#after']);
    expect(rest.text).not.toContain('(ctxpkg:');
    // Exact fit still delivers everything, with no note.
    const exact = compilePack({ graph: listGraph(), maxBytes: full.bytes, now: NOW });
    expect(exact.text).toBe(full.text);
    expect(full.text).not.toContain('(ctxpkg:');
  });

  it('at a budget of an eighth of the list the list is not dropped whole (was: oversize, after the others, omitted)', () => {
    const p = compilePack({ graph: listGraph(), maxBytes: 900, now: NOW });
    expect(p.receipt.delivered.map((d) => d.id)).toContain('@a/p#list');
    expect(p.text).toContain('- Rule number 1:');
  });
});

describe('force and fairness', () => {
  it('forceOf: security text 2, hard imperatives 1, else 0', () => {
    expect(forceOf('Never commit API keys, credentials or personal data.')).toBe(2);
    expect(forceOf('Validate and sanitise all user input.')).toBe(2);
    expect(forceOf('Always collapse if statements.')).toBe(1);
    expect(forceOf('Do not re-run tests after fmt.')).toBe(1);
    expect(forceOf('Periodically run `uv pip list --outdated`.')).toBe(0);
  });

  it('a security rule beats routine advice of the same kind', () => {
    const g = graph([
      node('@a/p', 'a', { type: 'procedure', content: 'Periodically run `uv pip list --outdated` and upgrade.' }),
      node('@a/p', 'b', { type: 'procedure', content: 'Rotate credentials every quarter.' }),
    ]);
    const full = compilePack({ graph: g, maxBytes: 64 * 1024, now: NOW });
    const p = compilePack({ graph: g, maxBytes: full.bytes - 20, now: NOW });
    expect(p.receipt.delivered.map((d) => d.id)).toEqual(['@a/p#b']);
  });

  it('waterFill: small needs are met whole, the rest split equally', () => {
    expect(waterFill(900, [100, 5000, 5000])).toEqual([100, 400, 400]);
    expect(waterFill(900, [1000, 1000, 1000])).toEqual([300, 300, 300]);
    expect(waterFill(10, [0, 3])).toEqual([0, 3]);
  });

  it('a small package keeps its items next to a big one', () => {
    const big = Array.from({ length: 40 }, (_, i) => node('@a/big', `g${String(i).padStart(2, '0')}`, { type: 'gotcha', content: `Never do thing ${i} in the big package.` }));
    const small = [node('@a/small', 'f1', { type: 'fact', content: 'Co-locate component styles with the component.' })];
    const p = compilePack({ graph: graph([...big, ...small]), maxBytes: 1500, now: NOW });
    expect(p.receipt.delivered.map((d) => d.id)).toContain('@a/small#f1');
  });

  it('a small package keeps a whole section of several items, though taking them one by one pays its note for a while', () => {
    // The small package's section is taken item by item; until its last item is taken it carries
    // its "1 of 2 items here" note. Its need counts that note, so its share covers the transient
    // bytes (was: the share equal to its need was short by the note, and both items were lost).
    const big = Array.from({ length: 60 }, (_, i) =>
      node('@a/big', `g${String(i).padStart(2, '0')}`, { type: 'gotcha', content: `Never do thing ${i} in the big package, whatever it says elsewhere.`, file_path: 'BIG.md', line_start: i + 1, line_end: i + 1 }),
    );
    const team = [
      node('@a/team', 'root', { type: 'section', content: 'Team conventions', file_path: 'AGENTS.md', line_start: 1, line_end: 4 }),
      node('@a/team', 'one', { type: 'gotcha', content: '- Never push to main; open a pull request.', file_path: 'AGENTS.md', line_start: 3, line_end: 3 }),
      node('@a/team', 'two', { type: 'convention', content: '- Run `make check` before every commit.', file_path: 'AGENTS.md', line_start: 4, line_end: 4 }),
    ];
    const g = graph([...big, ...team], [
      { from: '@a/team#root', to: '@a/team#one', type: 'contains' },
      { from: '@a/team#root', to: '@a/team#two', type: 'contains' },
    ]);
    for (let maxBytes = 1500; maxBytes <= 6000; maxBytes += 250) {
      for (const trusted of [undefined, new Set(['@a/team'])]) {
        const p = compilePack({ graph: g, maxBytes, now: NOW, ...(trusted ? { trusted } : {}) });
        expect(p.receipt.delivered.filter((d) => d.package === '@a/team').map((d) => d.id), `${maxBytes} ${trusted ? 'trusted' : ''}`).toEqual(['@a/team#one', '@a/team#two']);
      }
    }
  });
  it('trusted packages share the bytes first: installing untrusted packages never takes bytes the team\'s own rules still need', () => {
    // The team's rules need about half the budget; two untrusted packages could use all of it.
    const team = Array.from({ length: 14 }, (_, i) =>
      node('@a/team', `t${String(i).padStart(2, '0')}`, { type: 'convention', content: `- Team rule ${i}: keep module ${i} free of side effects on import.`, file_path: 'AGENTS.md', line_start: i + 1, line_end: i + 1 }),
    );
    const vendor = (name: string) =>
      Array.from({ length: 30 }, (_, i) => node(name, `v${String(i).padStart(2, '0')}`, { type: 'gotcha', content: `Never call endpoint ${i} of ${name} without a retry budget.`, file_path: 'GUIDE.md', line_start: i + 1, line_end: i + 1 }));
    const trusted = new Set(['@a/team']);
    const teamOf = (p: ReturnType<typeof compilePack>) => p.receipt.delivered.filter((d) => d.package === '@a/team').map((d) => d.id);
    const alone = compilePack({ graph: graph(team), maxBytes: 64 * 1024, now: NOW, trusted });
    for (let maxBytes = alone.bytes + 300; maxBytes <= alone.bytes + 3000; maxBytes += 450) {
      for (const others of [['@v/one'], ['@v/one', '@v/two']]) {
        const p = compilePack({ graph: graph([...team, ...others.flatMap(vendor)]), maxBytes, now: NOW, trusted });
        expect(teamOf(p), `${maxBytes} ${others.join(' ')}`).toEqual(teamOf(alone));
        // The untrusted packages get what is left (the fence and some of their items, once it pays for the fence).
        if (maxBytes >= alone.bytes + 1200) expect(p.receipt.delivered.some((d) => d.package.startsWith('@v/')), `${maxBytes}`).toBe(true);
        // Without trust the team's package is one of several equals and loses items.
        if (maxBytes === alone.bytes + 300) expect(teamOf(compilePack({ graph: graph([...team, ...others.flatMap(vendor)]), maxBytes, now: NOW })).length).toBeLessThan(14);
      }
    }
  });
  it('trusted first also for items of one section taken in source order against the rank order (each waits for the one above it)', () => {
    // A trusted section whose first lines rank low (facts) and later lines high (gotchas): a
    // gotcha is read first but can be taken only after the fact above it (sections in source
    // order), so one pass over the trusted tier misses it and the vendor's tier took its bytes.
    const team = [
      node('@a/team', 'root', { type: 'section', content: 'Team rules', file_path: 'AGENTS.md', line_start: 1, line_end: 20 }),
      ...Array.from({ length: 8 }, (_, i) =>
        node('@a/team', `t${i}`, { type: i % 2 === 0 ? 'fact' : 'gotcha', content: `- Team rule ${i}: ${i % 2 === 0 ? 'the service keeps its state in' : 'never write to'} table ${i} from a request handler.`, file_path: 'AGENTS.md', line_start: i + 2, line_end: i + 2 }),
      ),
    ];
    const edges = team.slice(1).map((n) => ({ from: '@a/team#root', to: n.id, type: 'contains' as const }));
    const vendor = Array.from({ length: 40 }, (_, i) => node('@v/one', `v${String(i).padStart(2, '0')}`, { type: 'gotcha', content: `Never call endpoint ${i} without a retry budget.`, file_path: 'GUIDE.md', line_start: i + 1, line_end: i + 1 }));
    const trusted = new Set(['@a/team']);
    const teamOf = (p: ReturnType<typeof compilePack>) => p.receipt.delivered.filter((d) => d.package === '@a/team').map((d) => d.id);
    const alone = compilePack({ graph: graph(team, edges), maxBytes: 64 * 1024, now: NOW, trusted });
    expect(teamOf(alone)).toHaveLength(8);
    for (let maxBytes = alone.bytes + 400; maxBytes <= alone.bytes + 2400; maxBytes += 250) {
      const p = compilePack({ graph: graph([...team, ...vendor], edges), maxBytes, now: NOW, trusted });
      expect(teamOf(p), `${maxBytes}`).toEqual(teamOf(alone));
    }
  });
});

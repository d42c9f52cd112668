/**
 * The Markdown frame (render-md.ts `frame`) is asked for many times per compilation with the
 * same inputs: its packages line is remembered between calls (`inputsText`), compared by value.
 * A call must give the text of the info as it is now, whatever was asked before — also when the
 * caller changes an inputs array it passed before. `omissionSummary` (render.ts) lists the
 * reasons with a count in the object's own key order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './render-md.js';
import { omissionSummary, type FrameInfo, type RenderItem } from './render.js';
import type { OmissionReason } from './types.js';

const ZERO: Record<OmissionReason, number> = { superseded: 0, expired: 0, secret: 0, disputed: 0, absent: 0, stale: 0, byte_budget: 0 };

function info(inputs: FrameInfo['inputs'], omitted: Partial<Record<OmissionReason, number>> = {}): FrameInfo {
  return {
    title: 'T',
    inputs,
    omitted: { ...ZERO, ...omitted },
    pinnedOmitted: 0,
    selection: { mode: 'all', items: 10, pinned: 0 },
    notes: [],
    receipt: false,
    trusted: [],
  };
}

const packagesLine = (prefix: string): string => prefix.split('\n').find((l) => l.startsWith('packages: ')) as string;
const inputs = (n: number, tag = ''): Array<{ package: string; version: string }> => Array.from({ length: n }, (_, i) => ({ package: `@p/n${i}${tag}`, version: '1.0.0' }));

describe("the frame's packages line", () => {
  it('follows a changed inputs array (same array, new contents)', () => {
    const list = inputs(3);
    expect(packagesLine(renderMarkdown.frame(info(list)).prefix)).toBe('packages: @p/n0@1.0.0, @p/n1@1.0.0, @p/n2@1.0.0');
    (list[1] as { package: string }).package = '@p/other';
    expect(packagesLine(renderMarkdown.frame(info(list)).prefix)).toBe('packages: @p/n0@1.0.0, @p/other@1.0.0, @p/n2@1.0.0');
    list[2] = { package: '@p/n2', version: '2.0.0' };
    expect(packagesLine(renderMarkdown.frame(info(list)).prefix)).toBe('packages: @p/n0@1.0.0, @p/other@1.0.0, @p/n2@2.0.0');
    list.push({ package: '@p/n3', version: '1.0.0' });
    expect(packagesLine(renderMarkdown.frame(info(list)).prefix)).toBe('packages: @p/n0@1.0.0, @p/other@1.0.0, @p/n2@2.0.0, @p/n3@1.0.0');
  });

  it('counts the packages past the listed ten, and follows a change of that count alone', () => {
    const list = inputs(12);
    const first = packagesLine(renderMarkdown.frame(info(list)).prefix);
    expect(first.endsWith('@p/n9@1.0.0 (+2 more packages: `ctxpkg ls`)')).toBe(true);
    list.pop();
    expect(packagesLine(renderMarkdown.frame(info(list)).prefix)).toBe(first.replace('(+2 more', '(+1 more'));
    expect(packagesLine(renderMarkdown.frame(info([])).prefix)).toBe('packages: none');
    expect(packagesLine(renderMarkdown.frame(info(inputs(12, 'x'))).prefix)).toBe(first.replaceAll('@1.0.0', 'x@1.0.0'));
  });

  it('ends every line with LF, and a title alone with one', () => {
    const f = renderMarkdown.frame(info(inputs(1), { byte_budget: 3 }));
    expect(f.prefix).toBe('# T\n\npackages: @p/n0@1.0.0\nnot shown: 3 (3 did not fit)\n');
    const agent = renderMarkdown.frame({ ...info(inputs(1)), style: 'agent' });
    expect(agent.prefix).toBe('# T\n');
  });
});

describe('omissionSummary', () => {
  it("lists the reasons with a count in the object's key order, own keys only", () => {
    const omitted = Object.create({ expired: 5 }) as Record<OmissionReason, number>;
    omitted.byte_budget = 2;
    omitted.secret = 1;
    omitted.stale = 0;
    expect(omissionSummary({ ...info([]), omitted, receipt: true })).toBe('3 (2 did not fit, 1 withheld: they hold a secret); the receipt lists each');
    expect(omissionSummary(info([], { secret: 1, byte_budget: 2 }))).toBe('3 (1 withheld: they hold a secret, 2 did not fit)');
    expect(omissionSummary(info([]))).toBe('none');
    expect(omissionSummary({ ...info([], { expired: 4 }), pinnedOmitted: 1 })).toBe('4 (4 expired; 1 of them pinned)');
    expect(omissionSummary({ ...info([], { expired: 1 }), selection: { mode: 'pinned', items: 5, pinned: 2 } })).toBe('1 of the 2 pinned items (1 expired)');
  });
});

describe('group headers (render-md.ts `groups`) asked again for one heading path', () => {
  const root = Object.freeze({ id: '@p/a#F.md', title: 'F title', file_path: 'F.md', line_start: 1, line_end: 9, scope: ['src/**'] });
  const sections = Object.freeze([root]);
  const item = (over: Partial<RenderItem>): RenderItem => ({
    id: '@p/a#x', package: '@p/a', version: '1.0.0', local_id: 'x', type: 'fact', content: 'x', file_path: 'F.md', line_start: 2, line_end: 2,
    scope: [], sections, seq: 0, flags: [], disputed_with: [], section: 'facts', ...over,
  });
  const text = (it: RenderItem): string => renderMarkdown.groups(it).map((g) => `${g.key}|${g.text}`).join('');

  it('follow every field they depend on, also a stated scope array changed in place', () => {
    const plain = text(item({}));
    expect(plain).toContain('applies to: src/**');
    expect(text(item({}))).toBe(plain);
    expect(text(item({ version: '2.0.0' }))).toContain('## @p/a@2.0.0');
    expect(text(item({ trusted: true }))).toContain('## Instructions from @p/a@1.0.0');
    expect(text(item({ package: '@p/b' }))).toContain('## @p/b@1.0.0');
    expect(text(item({ file_path: 'G.md' }))).toContain('### G.md');
    const stated = ['src/**'];
    expect(text(item({ statedScope: stated }))).not.toContain('applies to');
    stated[0] = 'lib/**';
    expect(text(item({ statedScope: stated }))).toBe(plain);
    expect(text(item({ statedScope: [] }))).toBe(plain);
    expect(text(item({}))).toBe(plain);
  });
});

describe('frameBytes (the frame size without its text)', () => {
  const bytesOf = (i: FrameInfo): number => new TextEncoder().encode(renderMarkdown.frame(i).prefix + renderMarkdown.frame(i).suffix).length;
  const word = fc.constantFrom('a', 'é', '😀', 'Notes', '\u200b', '@p/x', '');
  const infoArb = fc.record({
    title: fc.constantFrom('T', 'Título', 'Context pack (ctxpkg)'),
    inputs: fc.constantFrom(inputs(0), inputs(2), inputs(12), inputs(2, 'é')),
    omitted: fc.record({ byte_budget: fc.nat({ max: 120000 }), expired: fc.nat({ max: 3 }), secret: fc.nat({ max: 2 }) }),
    pinnedOmitted: fc.nat({ max: 2 }),
    mode: fc.constantFrom('all', 'pinned') as fc.Arbitrary<'all' | 'pinned'>,
    focused: fc.option(fc.nat({ max: 9 }), { nil: undefined }),
    focus: fc.option(fc.constantFrom('deploy', 'déploy'), { nil: undefined }),
    notes: fc.array(word, { maxLength: 2 }),
    receipt: fc.boolean(),
    trusted: fc.constantFrom([], ['@p/n0@1.0.0'], ['@p/é@1']),
    style: fc.constantFrom('pack', 'pack', 'agent') as fc.Arbitrary<'pack' | 'agent'>,
  });

  it('equals the size of the frame it would build, over sequences of frames that share some fields (property)', () => {
    fc.assert(
      fc.property(fc.array(infoArb, { minLength: 1, maxLength: 8 }), fc.array(fc.nat({ max: 120000 }), { maxLength: 6 }), (infos, counts) => {
        for (const x of infos) {
          const i: FrameInfo = { ...info(x.inputs, x.omitted), title: x.title, pinnedOmitted: x.pinnedOmitted, selection: { mode: x.mode, items: 10, pinned: 2, ...(x.focused !== undefined ? { focused: x.focused } : {}) }, focus: x.focus, notes: x.notes, receipt: x.receipt, trusted: x.trusted, style: x.style };
          expect(renderMarkdown.frameBytes?.(i)).toBe(bytesOf(i));
          // The same frame at other omission counts (what the selection asks).
          for (const nb of counts) {
            const j = { ...i, omitted: { ...i.omitted, byte_budget: nb } };
            expect(renderMarkdown.frameBytes?.(j)).toBe(bytesOf(j));
          }
        }
      }),
      { numRuns: 400, seed: 5 },
    );
  });

  it('follows each field the rest of the prefix depends on, one at a time', () => {
    const base: FrameInfo = { ...info(inputs(2), { byte_budget: 7 }), focus: 'deploy', selection: { mode: 'all', items: 10, pinned: 2, focused: 4 }, notes: ['n'], trusted: ['@p/n0@1.0.0'] };
    const variants: FrameInfo[] = [
      base,
      { ...base, title: 'Another title' },
      { ...base, inputs: inputs(2, 'é') },
      { ...base, inputs: inputs(3) },
      { ...base, focus: 'déploy, longer' },
      { ...base, selection: { ...base.selection, focused: 10 } },
      { ...base, selection: { ...base.selection, items: 100 } },
      { ...base, selection: { ...base.selection, mode: 'pinned' } },
      { ...base, notes: ['n', 'm'] },
      { ...base, trusted: ['@p/n0@1.0.0', '@p/n1@1.0.0'] },
      { ...base, receipt: true },
      { ...base, pinnedOmitted: 1 },
    ];
    const pinnedBase: FrameInfo = { ...base, selection: { mode: 'pinned', items: 10, pinned: 2 } };
    const pairs: Array<[FrameInfo, FrameInfo]> = [...variants.map((v): [FrameInfo, FrameInfo] => [base, v]), [pinnedBase, { ...pinnedBase, selection: { mode: 'pinned', items: 10, pinned: 10 } }]];
    for (const [b, v] of pairs) {
      // Each after its base, so the memo holds the base's fields when the variant is asked.
      expect(renderMarkdown.frameBytes?.(b)).toBe(bytesOf(b));
      expect(renderMarkdown.frameBytes?.(v)).toBe(bytesOf(v));
    }
  });

  it('follows a notes array changed in place', () => {
    const notes = ['first note'];
    const i = { ...info(inputs(2)), notes };
    expect(renderMarkdown.frameBytes?.(i)).toBe(bytesOf(i));
    notes[0] = 'a longer first note, with é';
    expect(renderMarkdown.frameBytes?.(i)).toBe(bytesOf(i));
    notes.push('second');
    expect(renderMarkdown.frameBytes?.(i)).toBe(bytesOf(i));
  });
});

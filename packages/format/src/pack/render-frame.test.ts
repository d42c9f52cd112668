/**
 * The Markdown frame (render-md.ts `frame`) is asked for many times per compilation with the
 * same inputs: its packages line is remembered between calls (`inputsText`), compared by value.
 * A call must give the text of the info as it is now, whatever was asked before — also when the
 * caller changes an inputs array it passed before. `omissionSummary` (render.ts) lists the
 * reasons with a count in the object's own key order.
 */
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

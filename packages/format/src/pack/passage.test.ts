import { describe, expect, it } from 'vitest';
import { EXCERPT_OVER, passagesOf } from './passage.js';

const item = (k: number, words: string): string => `- Item ${k}: ${words} ${'filler text '.repeat(8)}`.trimEnd();
const LIST = ['Before you change the API, note:', '', ...Array.from({ length: 12 }, (_, k) => item(k, 'something')), '  continuation of item 11'].join('\n');

describe('passagesOf', () => {
  it('keeps short, one-line and single-unit nodes whole', () => {
    expect(passagesOf('- short')).toEqual([{ text: '- short', index: '- short', excerpt: false, first: 0, last: 0 }]);
    expect(passagesOf('x '.repeat(EXCERPT_OVER))).toHaveLength(1);
    const code = '```sh\n' + 'echo hi\n\n'.repeat(200) + '```';
    expect(passagesOf(code)).toHaveLength(1);
  });

  it('splits a long lead-in list into its items, each with the lead-in, verbatim, gaps marked', () => {
    expect(LIST.length).toBeGreaterThan(EXCERPT_OVER);
    const ps = passagesOf(LIST);
    expect(ps).toHaveLength(12);
    const lines = LIST.split('\n');
    expect(ps[0]).toEqual({ text: `${lines[0]}\n${lines[2]}\n[…]`, index: `${lines[0]}\n${lines[2]}`, excerpt: true, first: 2, last: 2 });
    expect(ps[7]!.text.split('\n')).toEqual([lines[0], '[…]', lines[9], '[…]']);
    // the last item keeps its continuation line; nothing follows it
    expect(ps[11]).toMatchObject({ text: `${lines[0]}\n[…]\n${lines[13]}\n${lines[14]}`, first: 13, last: 14 });
  });

  it('a list without a lead-in: one passage per item, no lead-in repeated', () => {
    const ps = passagesOf(LIST.split('\n').slice(2).join('\n'));
    expect(ps).toHaveLength(12);
    expect(ps[0]!.text.startsWith('- Item 0')).toBe(true);
  });

  it('keeps fenced code inside its item', () => {
    const text = [item(0, 'a'), '  ```sh', '', '  - not an item', '  ```', ...Array.from({ length: 10 }, (_, k) => item(k + 1, 'b'))].join('\n');
    const ps = passagesOf(text);
    expect(ps[0]!.index).toBe([item(0, 'a'), '  ```sh', '', '  - not an item', '  ```'].join('\n'));
  });
});

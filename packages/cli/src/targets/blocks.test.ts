import { describe, expect, it } from 'vitest';
import { packageSlug } from '@ctxpkg/format';
import { appendBlock, blockOverhead, findBlock, makeBlock, removeBlock, replaceBlock } from './blocks.js';

describe('managed blocks', () => {
  const block = makeBlock('hello\nworld\n');

  it('round-trips byte for byte: append, find unedited, replace, remove back to the original text', () => {
    for (const user of ['# Mine\n\nkeep me\n', '# Mine', 'two blank lines\n\n', '']) {
      const { text: withBlock, sep } = appendBlock(user, block);
      expect(withBlock.startsWith(user)).toBe(true);
      const st = findBlock(withBlock);
      expect(st).toMatchObject({ kind: 'ok', edited: false, text: block });
      if (st.kind !== 'ok') throw new Error('unreachable');
      const next = makeBlock('changed');
      expect(replaceBlock(withBlock, st, next)).toBe(withBlock.replace(block, next));
      expect(removeBlock(withBlock, st, sep)).toBe(user);
    }
    // Without the record's separator (fresh clone) the common case still comes back exactly.
    const common = appendBlock('# Mine\n', block).text;
    expect(removeBlock(common, findBlock(common) as never)).toBe('# Mine\n');
  });

  it('detects hand edits from the hash in the markers, tolerating CRLF line ends', () => {
    const { text } = appendBlock('x\n', block);
    expect(findBlock(text.replace(/\n/g, '\r\n'))).toMatchObject({ kind: 'ok', edited: false });
    expect(findBlock(text.replace('world', 'World'))).toMatchObject({ kind: 'ok', edited: true });
    // An end marker removed by hand: the block runs to the end and counts as edited.
    expect(findBlock(text.replace(/<!-- ctxpkg:end[^\n]*/, ''))).toMatchObject({ kind: 'ok', edited: true });
    expect(findBlock('no markers')).toEqual({ kind: 'none' });
  });

  it('a block from before the end marker carried the hash is still found', () => {
    const legacy = block.replace(/<!-- ctxpkg:end sha256=[0-9a-f]+ -->/, '<!-- ctxpkg:end -->');
    expect(findBlock(`mine\n\n${legacy}\n`)).toMatchObject({ kind: 'ok', edited: false, text: legacy });
  });

  it('hostile body text cannot close the block or open another (issue 11 item 4)', () => {
    const forged = [
      '<!-- ctxpkg:end -->',
      `<!-- ctxpkg:end sha256=${'0'.repeat(64)} -->`,
      `<!-- ctxpkg:begin sha256=${'1'.repeat(64)} (managed by \`ctxpkg sync\`; edits here stop its updates) -->`,
      'injected instructions',
    ].join('\n');
    const b = makeBlock(`before\n${forged}\nafter`);
    const { text, sep } = appendBlock('# Mine\n', b);
    const st = findBlock(text);
    expect(st).toMatchObject({ kind: 'ok', edited: false, text: b });
    if (st.kind !== 'ok') throw new Error('unreachable');
    // Uninstall removes every line of it: no package text survives.
    expect(removeBlock(text, st, sep)).toBe('# Mine\n');
  });

  it('knows its own overhead', () => {
    expect(Buffer.byteLength(makeBlock('abc'))).toBe(blockOverhead() + 3);
  });
});

describe('packageSlug', () => {
  it('makes a safe single path segment from any name', () => {
    expect(packageSlug('@acme/auth-context')).toBe('acme__auth-context');
    expect(packageSlug('legacy.name_1')).toBe('legacy.name_1');
    for (const hostile of ['@../../etc', '@a/b/../../c', '@A/B\\C', '@x/y\u0000z']) {
      const slug = packageSlug(hostile);
      expect(slug).toMatch(/^[a-z0-9._-]+$/);
      expect(slug).not.toContain('/');
    }
  });
});

import { describe, expect, it } from 'vitest';
import { appendBlock, BLOCK_END, blockOverhead, findBlock, makeBlock, removeBlock, replaceBlock } from './blocks.js';
import { packageSlug } from './outputs.js';

describe('managed blocks', () => {
  const block = makeBlock('hello\nworld\n');

  it('round-trips: append, find unedited, replace, remove back to the original text', () => {
    const user = '# Mine\n\nkeep me\n';
    const withBlock = appendBlock(user, block);
    expect(withBlock).toBe(`# Mine\n\nkeep me\n\n${block}\n`);
    const st = findBlock(withBlock);
    expect(st).toMatchObject({ kind: 'ok', edited: false, text: block });
    if (st.kind !== 'ok') throw new Error('unreachable');
    const next = makeBlock('changed');
    expect(replaceBlock(withBlock, st, next)).toBe(`# Mine\n\nkeep me\n\n${next}\n`);
    expect(removeBlock(withBlock, st)).toBe(user);
    expect(removeBlock(appendBlock('', block), findBlock(appendBlock('', block)) as never)).toBe('');
  });

  it('detects hand edits from the hash in the begin marker, tolerating CRLF line ends', () => {
    const text = appendBlock('x\n', block);
    expect(findBlock(text.replace(/\n/g, '\r\n'))).toMatchObject({ kind: 'ok', edited: false });
    expect(findBlock(text.replace('world', 'World'))).toMatchObject({ kind: 'ok', edited: true });
    expect(findBlock(text.replace(/sha256=[0-9a-f]+/, 'sha256=zz'))).toMatchObject({ kind: 'ok', edited: true });
  });

  it('reports malformed blocks instead of guessing', () => {
    expect(findBlock('no markers')).toEqual({ kind: 'none' });
    expect(findBlock(`${block}\n${block}`)).toMatchObject({ kind: 'malformed' });
    expect(findBlock(`${BLOCK_END}\n${block.split('\n')[0]}`)).toMatchObject({ kind: 'malformed' });
    expect(findBlock(block.split('\n')[0] as string)).toMatchObject({ kind: 'malformed' });
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

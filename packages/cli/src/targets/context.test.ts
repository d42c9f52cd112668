import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceReader } from './context.js';

describe('workspaceReader', () => {
  const outside = mkdtempSync(join(tmpdir(), 'ctxpkg-out-'));
  writeFileSync(join(outside, 'secret.txt'), 'outside');
  const root = mkdtempSync(join(tmpdir(), 'ctxpkg-ws-'));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'a.md'), 'inside\n');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'));
  symlinkSync(outside, join(root, 'outdir'));
  symlinkSync(join(root, 'docs', 'a.md'), join(root, 'inlink.md'));
  const read = workspaceReader(root);

  it('reads files inside the root, null for missing ones and directories', () => {
    expect(read('docs/a.md')).toBe('inside\n');
    expect(read('inlink.md')).toBe('inside\n');
    expect(read('docs/missing.md')).toBeNull();
    expect(read('docs')).toBeNull();
    expect(read('docs/a.md/x')).toBeNull();
  });

  it("never reads ctxpkg's own output as source: managed blocks are blank lines, generated rule files and .ctxpkg/ are absent", () => {
    writeFileSync(join(root, 'AGENTS.md'), '# Ours\n<!-- ctxpkg:begin sha256=ab -->\n- Never push to main.\n<!-- ctxpkg:end sha256=ab -->\n- Our own line.\n');
    expect(read('AGENTS.md')).toBe('# Ours\n\n\n\n- Our own line.\n');
    mkdirSync(join(root, '.claude', 'rules'), { recursive: true });
    writeFileSync(join(root, '.claude', 'rules', 'ctxpkg-acme.md'), '---\npaths: ["src/**"]\n---\n<!-- ctxpkg:begin sha256=cd -->\n- x\n<!-- ctxpkg:end sha256=cd -->\n');
    writeFileSync(join(root, '.claude', 'rules', 'mine.md'), '- mine\n');
    expect(read('.claude/rules/ctxpkg-acme.md')).toBeNull();
    expect(read('.claude/rules/mine.md')).toBe('- mine\n');
    mkdirSync(join(root, '.ctxpkg'), { recursive: true });
    writeFileSync(join(root, '.ctxpkg', 'notes.md'), 'x\n');
    expect(read('.ctxpkg/notes.md')).toBeNull();
  });

  it('never reads outside the root (unsafe paths, symlinked files or directories)', () => {
    for (const p of ['../x', '/etc/passwd', 'link.txt', 'outdir/secret.txt', 'docs/../../x', '']) expect(read(p)).toBeUndefined();
  });
});

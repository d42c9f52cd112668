import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quickstartSource } from './quickstart.js';

describe('quickstart: which AGENTS.md it packages (help and behaviour agree)', () => {
  const empty = () => mkdtempSync(join(tmpdir(), 'ctxpkg-qs-'));
  it('--from, else ./AGENTS.md, else the bundled one, and says which', () => {
    const cwd = empty();
    const bundled = join(empty(), 'AGENTS.md');
    writeFileSync(bundled, '# bundled\n');
    expect(quickstartSource({}, { cwd }, bundled)).toEqual({ path: bundled, origin: 'bundled' });
    writeFileSync(join(cwd, 'AGENTS.md'), '# here\n');
    expect(quickstartSource({}, { cwd }, bundled)).toEqual({ path: join(cwd, 'AGENTS.md'), origin: 'cwd' });
    writeFileSync(join(cwd, 'CLAUDE.md'), '# claude\n');
    expect(quickstartSource({ from: 'CLAUDE.md' }, { cwd }, bundled)).toEqual({ path: join(cwd, 'CLAUDE.md'), origin: 'from' });
  });
  it('refuses a missing --from and a directory without AGENTS.md when nothing is bundled (E_NOT_FOUND)', () => {
    const cwd = empty();
    expect(() => quickstartSource({ from: 'nope.md' }, { cwd }, join(cwd, 'x'))).toThrow(expect.objectContaining({ code: 'E_NOT_FOUND' }));
    expect(() => quickstartSource({}, { cwd }, join(cwd, 'missing', 'AGENTS.md'))).toThrow(expect.objectContaining({ code: 'E_NOT_FOUND', hint: expect.stringContaining('--from') }));
  });
  it('the bundled fallback is this repository\'s AGENTS.md', () => {
    const r = quickstartSource({}, { cwd: empty() });
    expect(r.origin).toBe('bundled');
    expect(r.path).toBe(join(__dirname, '..', '..', '..', '..', 'AGENTS.md'));
  });
});

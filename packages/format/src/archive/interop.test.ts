/**
 * Interop with Info-ZIP (`zip`/`unzip`, when installed): archives written by common tools read
 * fine — including directory entries, timestamp extra fields and data descriptors (a streamed
 * `zip` to a pipe) — and our archives pass `unzip -t`.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readArchive } from './reader.js';
import { BLOB, BLOB_REF, CONTENT_TEXT, MANIFEST_TEXT, baseArchive } from './__tests__/fixtures.js';
import { parseZip } from './__tests__/zip-builder.js';

function has(tool: string): boolean {
  try {
    execFileSync(tool, ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function withPackageDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'ctxpkg-interop-'));
  try {
    writeFileSync(join(dir, 'ctxpkg.json'), MANIFEST_TEXT);
    writeFileSync(join(dir, 'content.json'), CONTENT_TEXT);
    mkdirSync(join(dir, 'blobs'));
    writeFileSync(join(dir, 'blobs', BLOB_REF), BLOB);
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!has('zip'))('archives made by Info-ZIP zip', () => {
  it('zip -r (directory entry, UT/ux extra fields) reads', async () => {
    const zip = withPackageDir((dir) => {
      execFileSync('zip', ['-q', '-r', 'p.zip', 'ctxpkg.json', 'content.json', 'blobs'], { cwd: dir });
      return new Uint8Array(execFileSync('cat', ['p.zip'], { cwd: dir }));
    });
    const r = await readArchive(zip);
    expect(r.manifestText).toBe(MANIFEST_TEXT);
    expect(r.contentText).toBe(CONTENT_TEXT);
    expect(r.blobs.get(BLOB_REF)).toEqual(BLOB);
  });

  it('zip streaming to a pipe (data descriptors) reads', async () => {
    const zip = withPackageDir((dir) =>
      new Uint8Array(execFileSync('zip', ['-q', '-r', '-', 'ctxpkg.json', 'content.json', 'blobs'], { cwd: dir })),
    );
    expect(parseZip(zip).some((e) => (e.flags & 0x0008) !== 0)).toBe(true);
    const r = await readArchive(zip);
    expect(r.blobs.get(BLOB_REF)).toEqual(BLOB);
  });
});

describe.skipIf(!has('unzip'))('our archives and Info-ZIP unzip', () => {
  it('unzip -t accepts them (CRCs, sizes, headers)', async () => {
    for (const zstd of ['none', 'all'] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'ctxpkg-interop-'));
      try {
        writeFileSync(join(dir, 'p.zip'), await baseArchive({ zstd }));
        const out = execFileSync('unzip', ['-t', 'p.zip'], { cwd: dir }).toString();
        expect(out).toMatch(/No errors detected/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

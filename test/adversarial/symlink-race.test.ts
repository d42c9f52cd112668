/**
 * Issue 11 item 10 — `.ctxpkg/graph` and `.ctxpkg/store` swapped for a symlink during install.
 *
 * What closes the race (packages/cli/src/pinned.ts): Node has no `openat`, so every write and
 * unlink under `.ctxpkg/` goes through directory handles — each component opened with
 * `O_DIRECTORY | O_NOFOLLOW` relative to the previous one via `/proc/self/fd/<n>` — and the temp
 * file, rename and unlink use `/proc/self/fd/<dir>/<name>`. A swap before the open makes the open
 * fail (`E_UNSAFE_PATH`); a swap after it cannot redirect the write, which lands in the directory
 * that was opened. (A check-then-write on paths, which is what was there, loses the race.)
 *
 * 1. Every derived directory replaced by a symlink to an outside directory: writes and unlinks
 *    refuse, the outside directory is untouched. 2. A swap *after* the handle was taken: the write
 *    lands in the original directory, never outside. 3. The reproduction: a child process
 *    flips `graph/` and `store/` between a directory and a symlink as fast as it can during 40
 *    installs; nothing is ever written outside the project.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unlinkPinned, writeFileAtomic } from '../../packages/cli/src/fsutil.js';
import { withPinnedPath } from '../../packages/cli/src/pinned.js';
import { cli, makePackage, tempDir } from '../support/cli.js';
import { SEED } from './support.js';

const DIRS = ['.ctxpkg', '.ctxpkg/graph', '.ctxpkg/store', '.ctxpkg/store/sha256', '.ctxpkg/store/blobs/sha256'];

function listAll(dir: string): string[] {
  return existsSync(dir) ? (readdirSync(dir, { recursive: true }) as string[]).sort() : [];
}

describe('issue 11.10: writes under .ctxpkg/ never follow a swapped-in symlink', () => {
  for (const linked of DIRS) {
    it(`${linked} is a symlink to an outside directory: write and unlink refuse (E_UNSAFE_PATH), outside untouched`, () => {
      const root = tempDir('ctxpkg-race-');
      const outside = tempDir('ctxpkg-race-outside-');
      writeFileSync(join(outside, 'victim'), 'keep me');
      mkdirSync(join(root, linked, '..'), { recursive: true });
      symlinkSync(outside, join(root, linked));
      const target = join(root, linked, 'blobs', 'sha256', 'victim');
      expect(() => writeFileAtomic(join(root, linked, 'x.json'), 'poison')).toThrow(expect.objectContaining({ code: 'E_UNSAFE_PATH' }));
      expect(() => writeFileAtomic(target, 'poison')).toThrow(expect.objectContaining({ code: 'E_UNSAFE_PATH' }));
      expect(() => unlinkPinned(join(root, linked, 'victim'))).toThrow(expect.objectContaining({ code: 'E_UNSAFE_PATH' }));
      expect(listAll(outside)).toEqual(['victim']);
      expect(readFileSync(join(outside, 'victim'), 'utf8')).toBe('keep me');
    });
  }

  it('a swap after the handle was taken cannot redirect the write (it lands in the opened directory)', () => {
    const root = tempDir('ctxpkg-race-');
    const outside = tempDir('ctxpkg-race-outside-');
    mkdirSync(join(root, '.ctxpkg', 'graph'), { recursive: true });
    withPinnedPath(join(root, '.ctxpkg', 'graph', 'merged.json'), (file) => {
      renameSync(join(root, '.ctxpkg', 'graph'), join(root, '.ctxpkg', 'moved'));
      symlinkSync(outside, join(root, '.ctxpkg', 'graph'));
      writeFileSync(file, 'data');
    });
    expect(listAll(outside)).toEqual([]);
    expect(readFileSync(join(root, '.ctxpkg', 'moved', 'merged.json'), 'utf8')).toBe('data');
  });

  it('40 installs while another process flips graph/ and store/ to symlinks: nothing is written outside', async () => {
    const root = tempDir('ctxpkg-race-proj-');
    const outside = tempDir('ctxpkg-race-outside-');
    const home = tempDir('ctxpkg-race-home-');
    writeFileSync(join(root, 'kb.ctxpkg'), makePackage('@acme/kb', '1.0.0', SEED, { nodes: ['Rotate keys daily'] }));
    expect((await cli(['init'], { cwd: root, home, fetch: globalThis.fetch })).code).toBe(0);
    const flipper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'), path = require('path');
         const root = ${JSON.stringify(root)}, outside = ${JSON.stringify(outside)};
         const end = Date.now() + 60000;
         let n = 0;
         while (Date.now() < end) {
           for (const d of ['.ctxpkg/graph', '.ctxpkg/store']) {
             const p = path.join(root, d);
             try { fs.renameSync(p, p + '.away' + (n++ % 4)); } catch {}
             try { fs.symlinkSync(outside, p); } catch {}
             try { fs.unlinkSync(p); } catch {}
             try { fs.mkdirSync(p, { recursive: true }); } catch {}
           }
         }`,
      ],
      { stdio: 'ignore' },
    );
    try {
      for (let i = 0; i < 40; i++) {
        const r = await cli(['install', 'kb.ctxpkg'], { cwd: root, home, fetch: globalThis.fetch });
        // A run may fail while its directories vanish under it (any code) — or install and then
        // fail to sync agent files (exit 8, a warning naming the code: install.ts "Exit codes",
        // install/sync-hook.ts) — and says why with a stable code; none may write outside.
        if (r.code === 8) expect(r.stderr, `run ${i}`).toMatch(/installed, but syncing agent files failed, so agents did not get this change: E_[A-Z_]+: /);
        else if (r.code !== 0) expect(r.stderr, `run ${i}`).toMatch(/error E_[A-Z_]+: /);
        expect(listAll(outside), `run ${i}`).toEqual([]);
      }
    } finally {
      flipper.kill('SIGKILL');
    }
    expect(listAll(outside)).toEqual([]);
  }, 120_000);
});

/**
 * Issue 11 item 7 — `file:` dependencies read only regular files inside the project, with a cap.
 *
 * A hostile repository's ctxpkg.json (or ctxpkg.lock) is read by every developer and CI that runs
 * `ctxpkg install`. Varied: character devices (`/dev/zero`, `/dev/urandom`), a FIFO (opening it
 * would block forever), a directory, an 11 MiB sparse file, a path outside the project, a symlink
 * inside the project that points outside, the same names in the lockfile path (a locked `file:`
 * entry read again) and on the command line. Every case ends promptly with a stable code and
 * writes nothing; a file outside the project is read only with `CTXPKG_ALLOW_OUTSIDE_FILES=1` or
 * when named on the command line.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, makePackage, tempDir } from '../support/cli.js';
import { SEED, sha256 } from './support.js';

const NAME = '@acme/kb';

/** Everything under `dir` without opening anything but regular files (a FIFO must not be opened). */
function projectSnapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[rel + name] = `l:${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        if (rel + name !== '.ctxpkg') out[rel + name] = 'd';
        walk(p, rel + name + '/');
      } else if (st.isFile()) out[rel + name] = `f:${st.size}:${st.size > 1 << 20 ? '' : sha256(readFileSync(p))}`;
      else out[rel + name] = `other:${st.mode}`;
    }
  };
  walk(dir, '');
  return out;
}
const noFetch = (() => {
  throw new Error('no network in these tests');
}) as unknown as typeof fetch;

function projectWith(dep: string): string {
  const p = tempDir('ctxpkg-filedep-');
  writeFileSync(join(p, 'ctxpkg.json'), JSON.stringify({ dependencies: { [NAME]: dep }, registries: {}, trust: { require_signature: true } }, null, 2) + '\n');
  return p;
}

const HOME = tempDir('ctxpkg-filedep-home-');
const install = (cwd: string, args: string[] = [], env: Record<string, string> = {}) => cli(['install', ...args], { cwd, home: HOME, fetch: noFetch, env });

async function expectRefused(p: string, code: RegExp, args: string[] = []): Promise<void> {
  const before = projectSnapshot(p);
  const r = await install(p, args);
  expect(r.code, r.stdout + r.stderr).not.toBe(0);
  expect(r.stderr).toMatch(code);
  expect(projectSnapshot(p)).toEqual(before);
}

describe('issue 11.7: file: dependencies', () => {
  it('character devices are refused without reading them (E_UNSAFE_PATH: not a regular file)', async () => {
    for (const dev of ['/dev/zero', '/dev/urandom', '/dev/null']) {
      // An absolute `file:` path in ctxpkg.json is refused before anything is opened (it would
      // not work in another clone); the same device reached by a relative path is outside the project.
      await expectRefused(projectWith(`file:${dev}`), /E_MANIFEST: .*is an absolute path/);
      const p = tempDir('ctxpkg-filedep-');
      writeFileSync(join(p, 'ctxpkg.json'), JSON.stringify({ dependencies: { [NAME]: `file:${relative(p, dev)}` }, registries: {}, trust: { require_signature: true } }, null, 2) + '\n');
      await expectRefused(p, /E_UNSAFE_PATH: .*(outside the project|not a regular file)/);
      // Even when files outside the project are allowed, a device is not a package file.
      const r = await install(p, [], { CTXPKG_ALLOW_OUTSIDE_FILES: '1' });
      expect(r.stderr).toMatch(/E_UNSAFE_PATH: .*not a regular file \(a character device\)/);
    }
  });

  it('a FIFO inside the project is refused at once (opening it would block forever)', async () => {
    const p = projectWith('file:vendor/kb.ctxpkg');
    mkdirSync(join(p, 'vendor'));
    expect(spawnSync('mkfifo', [join(p, 'vendor', 'kb.ctxpkg')]).status).toBe(0);
    await expectRefused(p, /E_UNSAFE_PATH: .*not a regular file \(a FIFO\)/);
  });

  it('a directory, and an 11 MiB sparse file (E_TOO_LARGE before reading it)', async () => {
    const d = projectWith('file:vendor');
    mkdirSync(join(d, 'vendor'));
    await expectRefused(d, /E_UNSAFE_PATH: .*not a regular file \(a directory\)/);
    const big = projectWith('file:big.ctxpkg');
    writeFileSync(join(big, 'big.ctxpkg'), '');
    truncateSync(join(big, 'big.ctxpkg'), 11 * 1024 * 1024);
    await expectRefused(big, /E_TOO_LARGE: .*big\.ctxpkg is 11534336 bytes; the limit is 10485760/);
  });

  it('a file outside the project (path or symlink) needs CTXPKG_ALLOW_OUTSIDE_FILES=1; on the command line it is explicit', async () => {
    const outside = tempDir('ctxpkg-outside-');
    writeFileSync(join(outside, 'kb.ctxpkg'), makePackage(NAME, '1.0.0', SEED));
    const byPath = projectWith(`file:${join(outside, 'kb.ctxpkg')}`);
    await expectRefused(byPath, /E_MANIFEST: .*is an absolute path/);
    const rel = projectWith('file:../' + join(outside, 'kb.ctxpkg').split('/').slice(-2).join('/'));
    await expectRefused(rel, /E_UNSAFE_PATH: .*outside the project/);
    const link = projectWith('file:vendor/kb.ctxpkg');
    mkdirSync(join(link, 'vendor'));
    symlinkSync(join(outside, 'kb.ctxpkg'), join(link, 'vendor', 'kb.ctxpkg'));
    await expectRefused(link, /E_UNSAFE_PATH: .*outside the project/);
    const dirLink = projectWith('file:vendor/kb.ctxpkg');
    symlinkSync(outside, join(dirLink, 'vendor'));
    await expectRefused(dirLink, /E_UNSAFE_PATH: .*outside the project/);
    // Allowed explicitly:
    const ok = await install(rel, [], { CTXPKG_ALLOW_OUTSIDE_FILES: '1' });
    expect(ok.code, ok.stderr).toBe(0);
    const arg = tempDir('ctxpkg-filedep-arg-');
    expect((await cli(['init'], { cwd: arg, home: HOME, fetch: noFetch })).code).toBe(0);
    const viaArg = await install(arg, [join(outside, 'kb.ctxpkg')]);
    expect(viaArg.code, viaArg.stderr).toBe(0);
    // …but a device is refused on the command line too.
    const dev = await install(arg, ['/dev/zero']);
    expect(dev.stderr).toMatch(/E_UNSAFE_PATH: .*not a regular file/);
  });

  it('a locked file: entry read again (not in the store) goes through the same checks', async () => {
    const p = projectWith('file:vendor/kb.ctxpkg');
    mkdirSync(join(p, 'vendor'));
    writeFileSync(join(p, 'vendor', 'kb.ctxpkg'), makePackage(NAME, '1.0.0', SEED));
    const r = await install(p);
    expect(r.code, r.stderr).toBe(0);
    const lock = readFileSync(join(p, 'ctxpkg.lock'), 'utf8');
    // A fresh clone: the lock and ctxpkg.json, the file swapped for a FIFO.
    const c = tempDir('ctxpkg-filedep-clone-');
    writeFileSync(join(c, 'ctxpkg.json'), readFileSync(join(p, 'ctxpkg.json')));
    writeFileSync(join(c, 'ctxpkg.lock'), lock);
    mkdirSync(join(c, 'vendor'));
    expect(spawnSync('mkfifo', [join(c, 'vendor', 'kb.ctxpkg')]).status).toBe(0);
    const before = projectSnapshot(c);
    const again = await cli(['install', '--frozen-lockfile'], { cwd: c, home: HOME, fetch: noFetch });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/E_UNSAFE_PATH: .*not a regular file \(a FIFO\)/);
    expect(projectSnapshot(c)).toEqual(before);
  });
});

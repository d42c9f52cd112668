/**
 * ADVERSARIAL archive cases through the real product paths: HB-13 (zip slip family, symlink
 * entries), HB-14 (duplicate, case-folded, normalization-colliding entries), HB-16 (lying sizes,
 * honest bombs), HB-25 (skills document paths). Each hostile archive is a valid signed package in
 * the ZIP form (`jsonBundleToArchive`) with exactly one defect, sent through a registry PUT over a
 * real port (400/413, storage unchanged), `ctxpkg install ./file` and `ctxpkg convert` (exit 1,
 * project unchanged, no file created anywhere in the surrounding sandbox). HB-16's memory bound
 * is measured on a registry server process (peak RSS from /proc) and on a CLI process.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeZstdFrame, jsonBundleToArchive, sha256Hex, writePackage } from '@ctxpkg/format';
import { createNamespace, createToken } from '@ctxpkg/registry';
import { crc32 } from '../../packages/format/src/archive/crc32.js';
import { buildZip, fileEntry, parseZip, type RawEntry } from '../../packages/format/src/archive/__tests__/zip-builder.js';
import { cli, type RunResult } from '../support/cli.js';
import { REPO_ROOT } from '../support/shared.js';
import { dec, liveRegistry, parts, projectSnapshot, putHttp, resign, SEED, T, temp, treeSnapshot, type LiveRegistry } from './support.js';

const MiB = 1024 * 1024;
let R: LiveRegistry;
let home: string;
let ZIP: Uint8Array;

beforeAll(async () => {
  home = temp('ctxpkg-adv-home-');
  R = await liveRegistry();
  ZIP = await jsonBundleToArchive(resign(parts('@acme/kb', '1.0.0')));
});
afterAll(async () => {
  await R.close();
});

const run = (args: string[], cwd: string): Promise<RunResult> => cli(args, { cwd, home, fetch: globalThis.fetch, env: { CTXPKG_REGISTRY: R.api } });

/** The valid ZIP's records with `extra` inserted right after the manifest entry (index 0). */
function withEntries(extra: RawEntry[], edit?: (e: RawEntry[]) => void): Uint8Array {
  const e = parseZip(ZIP);
  expect(dec(e[0]!.name)).toBe('ctxpkg.json');
  e.splice(1, 0, ...extra);
  edit?.(e);
  return buildZip(e);
}

const symlink = (name: string, target: string): RawEntry => ({ ...fileEntry(name, new TextEncoder().encode(target), { stored: true }), externalAttributes: ((0o120777 << 16) >>> 0) });

/**
 * Send `bytes` through registry PUT, local install and convert inside a sandbox directory;
 * assert a refusal whose code is in `codes`, storage/project/sandbox unchanged.
 */
async function refused(label: string, bytes: Uint8Array, codes: string[], status = 400): Promise<void> {
  const before = R.snapshot();
  const put = await putHttp(R.api, R.publish, '@acme/kb', '1.0.0', bytes);
  expect([label, put.status]).toEqual([label, status]);
  expect(codes, `${label}: ${JSON.stringify(put.body)}`).toContain(put.body.code);
  expect(R.snapshot(), label).toBe(before);

  const sandbox = temp('ctxpkg-adv-sandbox-');
  const p = join(sandbox, 'a', 'b', 'c', 'project');
  mkdirSync(p, { recursive: true });
  await run(['init'], p);
  writeFileSync(join(p, 'hostile.ctxpkg'), bytes);
  const snap = { project: projectSnapshot(p), sandbox: treeSnapshot(sandbox) };
  const inst = await run(['install', './hostile.ctxpkg'], p);
  expect([label, inst.code]).toEqual([label, 1]);
  expect(codes.some((c) => inst.stderr.includes(c)), `${label}: ${inst.stderr}`).toBe(true);
  const conv = await run(['convert', 'hostile.ctxpkg', 'out.ctxpkg', '--to', 'json'], p);
  expect([label, conv.code]).toEqual([label, 1]);
  expect(projectSnapshot(p), label).toEqual(snap.project);
  const after = treeSnapshot(sandbox);
  delete after['a/b/c/project/.ctxpkg'];
  delete snap.sandbox['a/b/c/project/.ctxpkg'];
  expect(after, label).toEqual(snap.sandbox);
}

describe('control', () => {
  it('the ZIP form of the base package publishes, installs and converts', async () => {
    const z = await jsonBundleToArchive(resign(parts('@acme/zip-ok', '1.0.0')));
    expect((await putHttp(R.api, R.publish, '@acme/zip-ok', '1.0.0', z)).status).toBe(201);
    const p = temp('ctxpkg-adv-proj-');
    await run(['init'], p);
    writeFileSync(join(p, 'ok.ctxpkg'), z);
    expect((await run(['install', './ok.ctxpkg'], p)).code).toBe(0);
    expect((await run(['convert', 'ok.ctxpkg', 'out.ctxpkg', '--to', 'json'], p)).code).toBe(0);
  });
});

describe('HB-13 zip slip family and symlink entries', () => {
  const payload = new TextEncoder().encode('pwned\n');
  const UNSAFE = ['E_ARCHIVE_UNSAFE_PATH'];
  for (const name of ['../../evil.txt', '/tmp/evil.txt', 'C:/evil.txt', 'blobs\\..\\..\\evil.txt', 'blobs/../../evil.txt']) {
    it(`${JSON.stringify(name)} → E_ARCHIVE_UNSAFE_PATH; nothing written anywhere`, async () => {
      const existed = existsSync('/tmp/evil.txt');
      await refused(name, withEntries([fileEntry(name, payload)]), UNSAFE);
      if (!existed) expect(existsSync('/tmp/evil.txt')).toBe(false);
    });
  }
  it('a symlink entry blobs/link → ../../../../etc/passwd → E_ARCHIVE_ENTRY_TYPE', async () => {
    await refused('symlink', withEntries([symlink('blobs/link', '../../../../etc/passwd')]), ['E_ARCHIVE_ENTRY_TYPE']);
  });
  const variants: Array<[string, RawEntry[]]> = [
    ['"..\\\\evil.txt"', [fileEntry('..\\evil.txt', payload)]],
    ['"blobs/.." (google/adk-js#621)', [fileEntry('blobs/..', payload)]],
    ['"blobs/./x"', [fileEntry('blobs/./x', payload)]],
    ['"blobs//x"', [fileEntry('blobs//x', payload)]],
    ['"./content.json"', [fileEntry('./content.json', payload)]],
    ['"..././evil.txt" (rc-zip#17)', [fileEntry('..././evil.txt', payload)]],
    ['"blobs/x\\u0000.txt" (NUL)', [fileEntry('blobs/x\u0000.txt', payload)]],
    ['"\\\\\\\\?\\\\C:\\\\evil" (Win32 device path)', [fileEntry('\\\\?\\C:\\evil', payload)]],
    ['"content.json:stream" (NTFS stream)', [fileEntry('content.json:stream', payload)]],
    ['"/" (yauzl#135)', [fileEntry('/', payload)]],
    ['a symlink named like a layout entry ("rebuild.json" → /etc/passwd)', [symlink('rebuild.json', '/etc/passwd')]],
    ['a symlink then a write through it', [symlink('blobs/d', '/tmp'), fileEntry('blobs/d/evil.txt', payload)]],
  ];
  for (const [what, entries] of variants) {
    it(`variant ${what} → refused as an unsafe or unknown entry`, async () => {
      await refused(what, withEntries(entries), ['E_ARCHIVE_UNSAFE_PATH', 'E_ARCHIVE_ENTRY_TYPE', 'E_ARCHIVE', 'E_ARCHIVE_DUPLICATE_ENTRY']);
    });
  }
});

describe('HB-14 duplicate, case-folded and normalization-colliding entries', () => {
  const manifestText = (): string => dec(new Uint8Array(inflateRawSync(parseZip(ZIP)[0]!.data)));
  const DUP = ['E_ARCHIVE_DUPLICATE_ENTRY'];
  it('(a) a second ctxpkg.json whose manifest says 9.9.9 → E_ARCHIVE_DUPLICATE_ENTRY', async () => {
    const evil = new TextEncoder().encode(manifestText().replace('"version": "1.0.0"', '"version": "9.9.9"'));
    expect(dec(evil)).toContain('9.9.9');
    await refused('dup manifest', withEntries([fileEntry('ctxpkg.json', evil)]), DUP);
  });
  it('(b) CTXPKG.JSON next to ctxpkg.json → E_ARCHIVE_DUPLICATE_ENTRY', async () => {
    await refused('case', withEntries([fileEntry('CTXPKG.JSON', new TextEncoder().encode(manifestText()))]), DUP);
  });
  it('(c) blobs/café (U+00E9) and blobs/cafe\\u0301 → E_ARCHIVE_DUPLICATE_ENTRY', async () => {
    const b = new TextEncoder().encode('blob');
    await refused('nfc/nfd', withEntries([fileEntry('blobs/caf\u00e9', b), fileEntry('blobs/cafe\u0301', b)]), DUP);
  });
  const variants: Array<[string, RawEntry[]]> = [
    ['Content.json next to content.json', [fileEntry('Content.json', new TextEncoder().encode('{}'))]],
    ['ctxpkg.json.zst next to ctxpkg.json', [fileEntry('ctxpkg.json.zst', encodeZstdFrame(new TextEncoder().encode('{}')), { stored: true })]],
    ['a second content.json stored instead of deflated', [fileEntry('content.json', new TextEncoder().encode('{"context_graph":{"format":"ctxpkg-graph-v2","nodes":[],"edges":[]}}'), { stored: true })]],
    ['blobs/K (Kelvin sign U+212A) and blobs/k', [fileEntry('blobs/\u212a', new Uint8Array(1)), fileEntry('blobs/k', new Uint8Array(1))]],
    ['blobs/ſ (long s) and blobs/s', [fileEntry('blobs/\u017f', new Uint8Array(1)), fileEntry('blobs/s', new Uint8Array(1))]],
  ];
  for (const [what, entries] of variants) {
    it(`variant: ${what} → refused (duplicate or unknown entry), nothing written`, async () => {
      await refused(what, withEntries(entries), ['E_ARCHIVE_DUPLICATE_ENTRY', 'E_ARCHIVE', 'E_ARCHIVE_UNSAFE_PATH']);
    });
  }
});

describe('HB-16 lying entry sizes and honest zip bombs (registry and CLI paths)', () => {
  function liar(): Uint8Array {
    const e = parseZip(ZIP);
    const ten = new Uint8Array(10 * MiB);
    e.push({ ...fileEntry('rebuild.json', ten), uncompressedSize: 100, crc: crc32(ten.subarray(0, 100)) });
    return buildZip(e);
  }
  function honest64(): Uint8Array {
    const e = parseZip(ZIP);
    e.push(fileEntry('rebuild.json', new Uint8Array(64 * MiB)));
    return buildZip(e);
  }
  it('(a) declares 100 bytes, inflates to 10 MiB → E_ARCHIVE_SIZE_MISMATCH (400) on every path', async () => {
    await refused('liar', liar(), ['E_ARCHIVE_SIZE_MISMATCH']);
  });
  it('(b) honest 64 MiB of zeros in a ~65 KB ZIP → E_TOO_LARGE (413 at the registry) on every path', async () => {
    const b = honest64();
    expect(b.length).toBeLessThan(100 * 1024);
    await refused('honest64M', b, ['E_TOO_LARGE'], 413);
  });

  it('a registry server process and a CLI process each stay within 64 MiB of peak-RSS growth on both bombs, and keep serving', async () => {
    const dir = temp('ctxpkg-adv-bombs-');
    writeFileSync(join(dir, 'liar.ctxpkg'), liar());
    writeFileSync(join(dir, 'honest.ctxpkg'), honest64());
    writeFileSync(join(dir, 'ok.ctxpkg'), await jsonBundleToArchive(resign(parts('@acme/kb', '1.0.0'))));
    // 1. the registry in its own process
    const dataDir = temp('ctxpkg-adv-bomb-reg-');
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(REPO_ROOT, 'test', 'registry-child.ts'), dataDir], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await listening(child);
      await createNamespace({ dataDir }, 'acme');
      const token = (await createToken({ dataDir }, { namespace: 'acme', scope: 'publish' })).token;
      const rss = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024;
      const warm = await putHttp(`${url}/api`, token, '@acme/warm', '1.0.0', await jsonBundleToArchive(resign(parts('@acme/warm', '1.0.0'))));
      expect(warm.status).toBe(201);
      const base = rss();
      for (const [f, status] of [['liar.ctxpkg', 400], ['honest.ctxpkg', 413]] as const) {
        const t0 = performance.now();
        const r = await putHttp(`${url}/api`, token, '@acme/kb', '1.0.0', new Uint8Array(readFileSync(join(dir, f))));
        console.log(`[HB-16] registry ${f}: ${r.status} ${r.body.code} in ${(performance.now() - t0).toFixed(0)} ms, peak RSS +${((rss() - base) / MiB).toFixed(1)} MiB`);
        expect([f, r.status]).toEqual([f, status]);
      }
      expect(rss() - base).toBeLessThan(64 * MiB);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    // 2. the CLI in its own process: a warm install, then each bomb
    const proj = temp('ctxpkg-adv-bomb-proj-');
    writeFileSync(join(proj, 'ctxpkg.json'), '{}');
    for (const f of ['ok.ctxpkg', 'liar.ctxpkg', 'honest.ctxpkg']) writeFileSync(join(proj, f), readFileSync(join(dir, f)));
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', CLI_CHILD], { cwd: REPO_ROOT, env: { ...process.env, PROJ: proj, HOME_DIR: home }, timeout: 120_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    const res = JSON.parse(out) as Array<{ file: string; code: number; err: string; growthKiB: number; ms: number }>;
    for (const r of res) console.log(`[HB-16] cli install ${r.file}: exit ${r.code} ${r.err.split('\n')[0]} in ${r.ms.toFixed(0)} ms, peak RSS +${(r.growthKiB / 1024).toFixed(1)} MiB`);
    expect(res.map((r) => [r.file, r.code])).toEqual([['liar.ctxpkg', 1], ['honest.ctxpkg', 1]]);
    expect(res[0]!.err).toContain('E_ARCHIVE_SIZE_MISMATCH');
    expect(res[1]!.err).toContain('E_TOO_LARGE');
    for (const r of res) expect(r.growthKiB * 1024).toBeLessThan(64 * MiB);
  });
});

const CLI_CHILD = `
import { PassThrough } from 'node:stream';
import { runCli } from 'ctxpkg';
const cwd = process.env.PROJ;
const mk = () => { let err = ''; const stdin = new PassThrough(); stdin.end(); return { deps: { fetch: globalThis.fetch, env: { CTXPKG_HOME: process.env.HOME_DIR }, cwd, homeDir: process.env.HOME_DIR, stdout: { write() {} }, stderr: { write(s) { err += s; } }, stdin, clock: () => new Date() }, err: () => err }; };
const w = mk();
const wc = await runCli(['install', './ok.ctxpkg'], w.deps);
if (wc !== 0) throw new Error('warm install failed: ' + w.err());
await runCli(['uninstall', '@acme/kb'], mk().deps);
globalThis.gc?.();
const out = [];
for (const file of ['liar.ctxpkg', 'honest.ctxpkg']) {
  const base = process.resourceUsage().maxRSS;
  const t0 = performance.now();
  const x = mk();
  const code = await runCli(['install', './' + file], x.deps);
  out.push({ file, code, err: x.err(), ms: performance.now() - t0, growthKiB: process.resourceUsage().maxRSS - base });
}
process.stdout.write(JSON.stringify(out));
`;

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /listening on (\S+)/.exec(buf);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (c) => reject(new Error(`registry child exited with ${c}`)));
  });
}

describe('HB-25 skills document paths (zip slip inside JSON)', () => {
  const skillsBase = (): { members: string } => {
    const plain = new TextEncoder().encode('# Skill\n');
    const text = dec(writePackage({ manifest: { name: '@acme/skills', version: '1.0.0', kind: 'skills', created_at: T } as never, content: { documents: { files: [{ path: 'skills/a.md', encoding: 'zstd+base64', sha256: sha256Hex(plain), body: Buffer.from(encodeZstdFrame(plain)).toString('base64') }] } } as never }, { seed: SEED }));
    const m = JSON.parse(text).manifest as Record<string, unknown>;
    return { members: Object.entries(m).filter(([k]) => k !== 'integrity' && k !== 'signature').map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',') };
  };
  const doc = (path: string, plain: Uint8Array = new TextEncoder().encode(`# ${path}\n`)) => ({ path, encoding: 'zstd+base64', sha256: sha256Hex(plain), body: Buffer.from(encodeZstdFrame(plain)).toString('base64') });
  const skills = (files: Array<ReturnType<typeof doc>>): Uint8Array =>
    resign({ name: '@acme/skills', version: '1.0.0', members: skillsBase().members, contentText: JSON.stringify({ documents: { files } }, null, 2) });

  async function refusedSkills(label: string, bytes: Uint8Array, codes: string[]): Promise<void> {
    const before = R.snapshot();
    const put = await putHttp(R.api, R.publish, '@acme/skills', '1.0.0', bytes);
    expect([label, put.status]).toEqual([label, put.body.code === 'E_TOO_LARGE' ? 413 : 400]);
    expect(codes, `${label}: ${JSON.stringify(put.body).slice(0, 300)}`).toContain(put.body.code);
    expect(R.snapshot(), label).toBe(before);
    const sandbox = temp('ctxpkg-adv-sandbox-');
    const p = join(sandbox, 'a', 'b', 'project');
    mkdirSync(p, { recursive: true });
    await run(['init'], p);
    writeFileSync(join(p, 'hostile.ctxpkg'), bytes);
    const snap = treeSnapshot(sandbox);
    const r = await run(['install', './hostile.ctxpkg'], p);
    expect([label, r.code]).toEqual([label, 1]);
    expect(codes.some((c) => r.stderr.includes(c)), `${label}: ${r.stderr}`).toBe(true);
    const after = treeSnapshot(sandbox);
    delete after['a/b/project/.ctxpkg'];
    expect(after, label).toEqual(snap);
  }

  it('control: a valid skills package publishes and installs', async () => {
    const b = skills([doc('skills/a.md'), doc('skills/b/c.md')]);
    expect((await putHttp(R.api, R.publish, '@acme/skills', '0.0.1', resign({ name: '@acme/skills', version: '0.0.1', members: skillsBase().members.replace('"version":"1.0.0"', '"version":"0.0.1"'), contentText: dec(b).slice(dec(b).indexOf('"content":') + 10, -1) }))).status).toBe(201);
    const p = temp('ctxpkg-adv-proj-');
    await run(['init'], p);
    writeFileSync(join(p, 'ok.ctxpkg'), b);
    const r = await run(['install', './ok.ctxpkg'], p);
    expect(r.code, r.stderr).toBe(0);
  });

  const UNSAFE = ['E_UNSAFE_DOCUMENT_PATH'];
  for (const path of ['skills/../../evil.md', '/etc/evil.md', 'skills\\evil.md', 'C:evil.md', 'skills//a.md', 'skills/./a.md', 'skills/..a.md', 'skills/a\u0007.md', `skills/${'a'.repeat(513 - 'skills/'.length)}` /* 513 characters */]) {
    it(`${JSON.stringify(path.length > 40 ? `${path.slice(0, 20)}…(${path.length})` : path)} → E_UNSAFE_DOCUMENT_PATH, nothing materialized`, async () => {
      await refusedSkills(path, skills([doc('skills/ok.md'), doc(path)]), UNSAFE);
    });
  }
  it('"skills/a.md" twice → E_DUPLICATE_DOCUMENT', async () => {
    await refusedSkills('twice', skills([doc('skills/a.md'), doc('skills/a.md')]), ['E_DUPLICATE_DOCUMENT']);
  });
  it('257 files → E_TOO_LARGE', async () => {
    await refusedSkills('257', skills(Array.from({ length: 257 }, (_, i) => doc(`skills/f${i}.md`, new Uint8Array([i & 255])))), ['E_TOO_LARGE']);
  });
  it('one file of 1 MiB + 1 byte → E_TOO_LARGE', async () => {
    await refusedSkills('1MiB+1', skills([doc('skills/big.md', new Uint8Array(MiB + 1).fill(0x61))]), ['E_TOO_LARGE']);
  });
  const collisions: Array<[string, string, string]> = [
    ['case', 'skills/A.md', 'skills/a.md'],
    ['NFC/NFD', 'skills/caf\u00e9.md', 'skills/cafe\u0301.md'],
    ['long s (folds to s on APFS/NTFS)', 'skills/\u017f.md', 'skills/s.md'],
    ['dotless i (NTFS upcases it to I)', 'skills/\u0131.md', 'skills/i.md'],
    ['Kelvin sign', 'skills/\u212a.md', 'skills/k.md'],
    ['fullwidth letters (NFKC)', 'skills/\uff41.md', 'skills/a.md'],
  ];
  for (const [what, a, b] of collisions) {
    it(`recommended: ${what} collision ${JSON.stringify(a)} / ${JSON.stringify(b)} → E_DUPLICATE_DOCUMENT`, async () => {
      await refusedSkills(what, skills([doc(a), doc(b)]), ['E_DUPLICATE_DOCUMENT']);
    });
  }
});

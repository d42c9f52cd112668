/**
 * `ctxpkg convert` end to end, in process: JSON ↔ ZIP keeping hashes and signature, byte-identical
 * re-creation, refusal to overwrite the input, and "nothing written" for every hostile archive of
 * ADVERSARIAL HB-13/14/16 rebuilt from an otherwise valid (signed) package archive.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { isZipBytes, jsonBundleToArchive, readArchive, readPackage, writePackage } from '@ctxpkg/format';
import { runCli } from '../packages/cli/src/program.js';
import type { CliDeps } from '../packages/cli/src/deps.js';
import { crc32 } from '../packages/format/src/archive/crc32.js';
import { buildZip, fileEntry, parseZip, type RawEntry } from '../packages/format/src/archive/__tests__/zip-builder.js';

const SEED = new Uint8Array(32).fill(0x2a);
const TEST_PUBLIC_KEY = '197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61';
const enc = new TextEncoder();

function signedPackage(blobRef?: string): Uint8Array {
  return writePackage(
    {
      manifest: { name: '@acme/archive-cli', version: '1.0.0', description: 'convert test', created_at: '2026-01-02T03:04:05Z' },
      content: {
        context_graph: {
          format: 'ctxpkg-graph-v2',
          nodes: [
            { id: 'a', type: 'fact', content: 'tokens expire after 15 minutes', activation: 1, confidence: 0.9 },
            { id: 'b', type: 'gotcha', content: 'never log tokens', activation: 0.5, ...(blobRef ? { blob_ref: blobRef } : {}) },
          ],
          edges: [{ from: 'b', to: 'a', type: 'supports', weight: 1 }],
        },
      },
    },
    { seed: SEED },
  );
}

function makeDeps(cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const deps: CliDeps = {
    fetch: (() => {
      throw new Error('no network in this test');
    }) as unknown as typeof fetch,
    env: {},
    cwd,
    homeDir: join(cwd, 'home'),
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    stdin: process.stdin,
    clock: () => new Date('2026-01-02T03:04:05Z'),
  };
  return { deps, out, err };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxpkg-convert-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  const { deps, out, err } = makeDeps(dir);
  const code = await runCli(argv, deps);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('ctxpkg convert', () => {
  it('JSON → ZIP → JSON keeps hashes and signature and re-creates the bundle byte for byte', async () => {
    const json = signedPackage();
    writeFileSync(join(dir, 'p.ctxpkg'), json);
    const a = await cli('convert', 'p.ctxpkg', 'p.zip.ctxpkg', '--to', 'zip');
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    const zip = new Uint8Array(readFileSync(join(dir, 'p.zip.ctxpkg')));
    expect(isZipBytes(zip)).toBe(true);
    const [pj, pz] = [await readPackage(json), await readPackage(zip)];
    expect(pz.form).toBe('zip');
    expect(pz.manifest.integrity).toEqual(pj.manifest.integrity);
    expect(pz.manifest.signature).toEqual(pj.manifest.signature);
    expect(pz.signer).toBe(TEST_PUBLIC_KEY);

    const b = await cli('convert', 'p.zip.ctxpkg', 'back.ctxpkg', '--json');
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ from: 'zip', to: 'json', signer: TEST_PUBLIC_KEY, content_hash: pj.manifest.integrity.content_hash });
    expect(new Uint8Array(readFileSync(join(dir, 'back.ctxpkg')))).toEqual(json);

    // Reproducible: a second conversion gives the same archive bytes.
    expect((await cli('convert', 'back.ctxpkg', 'again.ctxpkg')).code).toBe(0);
    expect(new Uint8Array(readFileSync(join(dir, 'again.ctxpkg')))).toEqual(zip);
  });

  it('--zstd all stores zstd frames and still round-trips', async () => {
    writeFileSync(join(dir, 'p.ctxpkg'), signedPackage());
    expect((await cli('convert', 'p.ctxpkg', 'z.ctxpkg', '--zstd', 'all')).code).toBe(0);
    const zip = new Uint8Array(readFileSync(join(dir, 'z.ctxpkg')));
    const names = parseZip(zip).map((e) => new TextDecoder().decode(e.name));
    expect(names).toEqual(['ctxpkg.json.zst', 'content.json.zst']);
    expect((await cli('convert', 'z.ctxpkg', 'back.ctxpkg')).code).toBe(0);
    expect(new Uint8Array(readFileSync(join(dir, 'back.ctxpkg')))).toEqual(signedPackage());
  });

  it('never overwrites its input (same path, or a hard link to it), nor an existing output without --force', async () => {
    const json = signedPackage();
    writeFileSync(join(dir, 'p.ctxpkg'), json);
    const same = await cli('convert', 'p.ctxpkg', './p.ctxpkg', '--to', 'zip');
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/E_USAGE/);
    linkSync(join(dir, 'p.ctxpkg'), join(dir, 'link.ctxpkg'));
    expect((await cli('convert', 'p.ctxpkg', 'link.ctxpkg', '--force')).code).toBe(2);
    expect(new Uint8Array(readFileSync(join(dir, 'p.ctxpkg')))).toEqual(json);

    writeFileSync(join(dir, 'taken.ctxpkg'), 'keep me');
    const exists = await cli('convert', 'p.ctxpkg', 'taken.ctxpkg');
    expect(exists.code).toBe(5);
    expect(exists.stderr).toMatch(/E_EXISTS/);
    expect(readFileSync(join(dir, 'taken.ctxpkg'), 'utf8')).toBe('keep me');
    expect((await cli('convert', 'p.ctxpkg', 'taken.ctxpkg', '--force')).code).toBe(0);
    expect(isZipBytes(new Uint8Array(readFileSync(join(dir, 'taken.ctxpkg'))))).toBe(true);
  });

  it('usage errors: bad --to, same form, missing input', async () => {
    writeFileSync(join(dir, 'p.ctxpkg'), signedPackage());
    expect((await cli('convert', 'p.ctxpkg', 'o.ctxpkg', '--to', 'tar')).code).toBe(2);
    expect((await cli('convert', 'p.ctxpkg', 'o.ctxpkg', '--to', 'json')).code).toBe(2);
    expect((await cli('convert', 'missing.ctxpkg', 'o.ctxpkg')).code).toBe(4);
    expect(readdirSync(dir).sort()).toEqual(['p.ctxpkg']);
  });

  it('an invalid input (content edited after signing) writes nothing', async () => {
    const text = new TextDecoder().decode(signedPackage()).replace('never log tokens', 'always log tokens');
    writeFileSync(join(dir, 'p.ctxpkg'), text);
    const r = await cli('convert', 'p.ctxpkg', 'o.ctxpkg');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_INTEGRITY/);
    expect(readdirSync(dir).sort()).toEqual(['p.ctxpkg']);
  });

  it('a ZIP with blobs converts to a JSON bundle carrying them ("blobs" member) and back, byte for byte', async () => {
    const blob = enc.encode('a large document the graph points at\n'.repeat(100));
    const ref = `sha256-${createHash('sha256').update(blob).digest('hex')}`;
    const zip = await jsonBundleToArchive(signedPackage(ref), { blobs: new Map([[ref, blob]]) });
    expect((await readPackage(zip)).blobs?.get(ref)).toEqual(blob);
    writeFileSync(join(dir, 'b.ctxpkg'), zip);
    const r = await cli('convert', 'b.ctxpkg', 'o.ctxpkg', '--json');
    expect(r.code, r.stderr).toBe(0);
    const json = readFileSync(join(dir, 'o.ctxpkg'));
    expect(isZipBytes(json)).toBe(false);
    const parsed = JSON.parse(json.toString('utf8'));
    expect(Object.keys(parsed)).toEqual(['manifest', 'content', 'blobs']);
    expect(parsed.blobs).toEqual({ [ref]: Buffer.from(blob).toString('base64') });
    const [a, b] = [await readPackage(zip), await readPackage(new Uint8Array(json))];
    expect(b.manifest.integrity).toEqual(a.manifest.integrity);
    expect(b.signer).toBe(TEST_PUBLIC_KEY);
    expect(b.blobs?.get(ref)).toEqual(blob);
    const back = await cli('convert', 'o.ctxpkg', 'z.ctxpkg');
    expect(back.code, back.stderr).toBe(0);
    expect(Buffer.compare(readFileSync(join(dir, 'z.ctxpkg')), Buffer.from(zip))).toBe(0);
  });

  it('a ZIP whose blobs would not fit a 10 MiB JSON bundle in base64 is refused (E_TOO_LARGE) and nothing is written', async () => {
    const blob = new Uint8Array(8 * 1024 * 1024).map((_, i) => (i * 2654435761) >>> 24);
    const ref = `sha256-${createHash('sha256').update(blob).digest('hex')}`;
    const zip = await jsonBundleToArchive(signedPackage(ref), { blobs: new Map([[ref, blob]]) });
    writeFileSync(join(dir, 'big.ctxpkg'), zip);
    const r = await cli('convert', 'big.ctxpkg', 'o.ctxpkg');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/E_TOO_LARGE: as a JSON bundle the package would be \d+ bytes/);
    expect(r.stderr).toMatch(/keep this package in the ZIP form/);
    expect(readdirSync(dir).sort()).toEqual(['big.ctxpkg']);
  });
});

describe('hostile archives (ADVERSARIAL HB-13, HB-14, HB-16): refused, nothing written', () => {
  async function validZipEntries(): Promise<RawEntry[]> {
    const zip = await jsonBundleToArchive(signedPackage());
    await readArchive(zip); // the base is valid
    return parseZip(zip);
  }
  const after = (entries: RawEntry[], ...extra: RawEntry[]): Uint8Array => buildZip([entries[0]!, ...extra, ...entries.slice(1)]);
  const tenMiB = new Uint8Array(10 * 1024 * 1024);

  const cases: Array<[string, string, (e: RawEntry[]) => Uint8Array]> = [
    ['HB-13 ../../evil.txt', 'E_ARCHIVE_UNSAFE_PATH', (e) => after(e, fileEntry('../../evil.txt', enc.encode('x')))],
    ['HB-13 /tmp/evil.txt', 'E_ARCHIVE_UNSAFE_PATH', (e) => after(e, fileEntry('/tmp/evil.txt', enc.encode('x')))],
    ['HB-13 C:/evil.txt', 'E_ARCHIVE_UNSAFE_PATH', (e) => after(e, fileEntry('C:/evil.txt', enc.encode('x')))],
    ['HB-13 blobs\\..\\..\\evil.txt', 'E_ARCHIVE_UNSAFE_PATH', (e) => after(e, fileEntry('blobs\\..\\..\\evil.txt', enc.encode('x')))],
    ['HB-13 blobs/../../evil.txt', 'E_ARCHIVE_UNSAFE_PATH', (e) => after(e, fileEntry('blobs/../../evil.txt', enc.encode('x')))],
    [
      'HB-13 symlink blobs/link',
      'E_ARCHIVE_ENTRY_TYPE',
      (e) => after(e, fileEntry('blobs/link', enc.encode('../../../../etc/passwd'), { stored: true, mode: 0o120777 })),
    ],
    [
      'HB-14a second ctxpkg.json with version 9.9.9',
      'E_ARCHIVE_DUPLICATE_ENTRY',
      (e) => after(e, fileEntry('ctxpkg.json', enc.encode('{"name":"@acme/archive-cli","version":"9.9.9"}'))),
    ],
    ['HB-14b CTXPKG.JSON', 'E_ARCHIVE_DUPLICATE_ENTRY', (e) => after(e, fileEntry('CTXPKG.JSON', enc.encode('{}')))],
    [
      'HB-14c blobs/café NFC + NFD',
      'E_ARCHIVE_DUPLICATE_ENTRY',
      (e) => after(e, fileEntry('blobs/caf\u00e9', enc.encode('1')), fileEntry('blobs/cafe\u0301', enc.encode('2'))),
    ],
    [
      'HB-16a content.json declares 100 bytes, inflates to 10 MiB',
      'E_ARCHIVE_SIZE_MISMATCH',
      (e) => buildZip([e[0]!, { ...fileEntry('content.json', tenMiB), uncompressedSize: 100, crc: crc32(tenMiB.subarray(0, 100)) }]),
    ],
    ['HB-16b honest 64 MiB of zeros', 'E_TOO_LARGE', (e) => after(e, fileEntry('rebuild.json', new Uint8Array(64 * 1024 * 1024)))],
  ];

  for (const [what, code, make] of cases) {
    it(`${what} → ${code}`, async () => {
      const bytes = make(await validZipEntries());
      writeFileSync(join(dir, 'evil.ctxpkg'), bytes);
      const r = await cli('convert', 'evil.ctxpkg', 'out.ctxpkg', '--json');
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout).error.code).toBe(code);
      expect(readdirSync(dir).sort()).toEqual(['evil.ctxpkg']); // no output, no temp file, nothing outside
    });
  }
});

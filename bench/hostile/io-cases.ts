/**
 * The I/O cases of bench/hostile (issue 11 items 6 and 7): a hostile registry on 127.0.0.1:0
 * answering a gzip bomb or an oversized index, against an honest index of the same size on the
 * wire; and `file:` dependencies naming a device or an oversized file, against an honest package
 * file. Each worst case must end in its refusal (E_TOO_LARGE / E_UNSAFE_PATH), fast and small.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { RegistryClient } from '../../packages/cli/src/client.js';
import { readLocalFile } from '../../packages/cli/src/install/local-file.js';
import { sized } from '../smoke.js';

type Measure = { ms: number; heapKiB: number };
type MeasureFn = (fn: () => unknown | Promise<unknown>) => Promise<Measure>;
type LineFn = (section: string, label: string, worst: Measure, honest: Measure) => void;

/** Run `fn`, expecting it to be refused with `code`; anything else is a broken bench. */
async function refused(fn: () => unknown | Promise<unknown>, code: string): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if ((err as { code?: string }).code === code) return;
    throw err;
  }
  throw new Error(`expected ${code}`);
}

function honestIndex(bytes: number): Buffer {
  const entry = (i: number) => JSON.stringify({ version: `1.0.${i}`, artifact_sha256: i.toString(16).padStart(64, '0'), yanked: false });
  const parts: string[] = [];
  let n = 40;
  for (let i = 0; n < bytes; i++) {
    const e = entry(i);
    parts.push(e);
    n += e.length + 1;
  }
  return Buffer.from(`{"name":"@acme/kb","versions":[${parts.join(',')}]}`);
}

export async function registryCases(measure: MeasureFn, line: LineFn): Promise<void> {
  const decoded = sized(256 << 20, 16 << 20);
  const bomb = gzipSync(Buffer.concat([Buffer.from('{"name":"@acme/kb","versions":['), Buffer.alloc(decoded, 0x20)]), { level: 9 });
  const honest = honestIndex(bomb.length);
  const oversized = honestIndex(sized(40 << 20, 9 << 20));
  let answer: { body: Buffer; gzip: boolean } = { body: honest, gzip: false };
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', ...(answer.gzip ? { 'content-encoding': 'gzip' } : {}) });
    res.on('error', () => undefined);
    res.end(answer.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  const client = new RegistryClient({ fetch: globalThis.fetch, settings: { project: { registries: {} }, user: { registries: {}, tokens: {} }, env: {} } });
  try {
    const honestM = await measure(async () => {
      answer = { body: honest, gzip: false };
      await client.index(base, '@acme/kb');
    });
    const bombM = await measure(async () => {
      answer = { body: bomb, gzip: true };
      await refused(() => client.index(base, '@acme/kb'), 'E_TOO_LARGE');
    });
    line('registry', `gzip-bomb index (${bomb.length} bytes on the wire, ${decoded} decoded) vs honest index of ${honest.length} bytes`, bombM, honestM);
    const bigM = await measure(async () => {
      answer = { body: oversized, gzip: false };
      await refused(() => client.index(base, '@acme/kb'), 'E_TOO_LARGE');
    });
    line('registry', `oversized index (${oversized.length} bytes) vs honest index of ${honest.length} bytes`, bigM, honestM);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

export async function fileCases(measure: MeasureFn, line: LineFn): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'ctxpkg-bench-files-'));
  try {
    const size = sized(9 << 20, 64 << 10);
    writeFileSync(join(root, 'honest.ctxpkg'), Buffer.alloc(size, 0x7b));
    writeFileSync(join(root, 'big.ctxpkg'), '');
    truncateSync(join(root, 'big.ctxpkg'), 11 << 20);
    const honest = await measure(() => readLocalFile(root, 'honest.ctxpkg', { allowOutside: false, label: 'honest.ctxpkg' }));
    const zero = await measure(() => refused(() => readLocalFile(root, '/dev/zero', { allowOutside: true, label: 'file:/dev/zero' }), 'E_UNSAFE_PATH'));
    line('file:', `file:/dev/zero (allowed outside) vs honest ${size}-byte package file`, zero, honest);
    const big = await measure(() => refused(() => readLocalFile(root, 'big.ctxpkg', { allowOutside: false, label: 'big.ctxpkg' }), 'E_TOO_LARGE'));
    line('file:', `11 MiB sparse file vs honest ${size}-byte package file`, big, honest);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

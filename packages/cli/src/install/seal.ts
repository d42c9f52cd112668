/**
 * Sealing derived data to the user who made it (ADVERSARIAL HB-26 class "committed derived data").
 *
 * `.ctxpkg/` is derived and gitignored by `ctxpkg init`, but a hostile repository can commit it
 * anyway: a `merged.json` with injected context, store files that never came from a registry, an
 * install state whose fingerprint is predictable from committed files. Everything ctxpkg later
 * trusts without recomputing it is therefore sealed: an HMAC-SHA256 under a per-user secret key,
 * `<user dir>/state.key` (32 random bytes as 64 hex characters, mode 0600, created on first use).
 * Nobody who can only commit files to a repository knows that key, so a sealed file in a fresh
 * clone does not open and is rebuilt from verified packages; files a user's own ctxpkg wrote keep
 * working offline. Losing the key (a new machine, a deleted user dir) only costs one rebuild.
 *
 * Sealed file: `{"format":"ctxpkg-sealed-v1","kind":K,"body":B,"mac":M}` where `B` is the exact
 * JSON text of the payload and `M` = hex HMAC-SHA256(key, "ctxpkg-sealed-v1\n" + K + "\n" + B).
 * The kind separates uses (a sealed install state never opens as a verified-artifact record).
 *
 * This module imports only `node:` built-ins (and the path table) so the no-op install fast path
 * (noop.ts) can use it without loading the format core.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { userDir } from '../paths.js';

const FORMAT = 'ctxpkg-sealed-v1';
const KEY_RE = /^[0-9a-f]{64}$/;

interface Env {
  env: Record<string, string | undefined>;
  homeDir: string;
}

/** Path of the per-user sealing key. */
export function sealKeyPath(deps: Env): string {
  return join(userDir(deps), 'state.key');
}

function readKeyFile(path: string): Buffer | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return KEY_RE.test(text) ? Buffer.from(text, 'hex') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The user's sealing key (32 bytes). With `create`, a missing key is made (written to a temp file,
 * fsynced, then hard-linked into place so two processes creating it at once agree on one key).
 * Returns undefined when there is no key and it cannot (or may not) be created: callers then treat
 * every sealed file as unsealed, which is always safe. Never throws.
 */
export function sealKey(deps: Env, create: boolean): Buffer | undefined {
  const path = sealKeyPath(deps);
  const existing = readKeyFile(path);
  if (existing || !create) return existing;
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(userDir(deps), { recursive: true, mode: 0o700 });
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      writeSync(fd, randomBytes(32).toString('hex'));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(tmp, 0o600);
    try {
      linkSync(tmp, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } catch {
    return readKeyFile(path);
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      /* not created */
    }
  }
  return readKeyFile(path);
}

function mac(key: Buffer, kind: string, body: string): string {
  return createHmac('sha256', key).update(`${FORMAT}\n${kind}\n${body}`, 'utf8').digest('hex');
}

/** The sealed file text for `body` (exact JSON text of the payload) under `kind`. */
export function sealText(key: Buffer, kind: string, body: string): string {
  return JSON.stringify({ format: FORMAT, kind, body, mac: mac(key, kind, body) }) + '\n';
}

/**
 * The body of a sealed file text, or undefined when the text is not a sealed file of `kind`
 * under `key` (any parse problem, another kind, a wrong MAC, no key). Never throws.
 */
export function openSealed(key: Buffer | undefined, kind: string, text: string | undefined): string | undefined {
  if (!key || text === undefined) return undefined;
  try {
    const o = JSON.parse(text) as { format?: unknown; kind?: unknown; body?: unknown; mac?: unknown };
    if (o.format !== FORMAT || o.kind !== kind || typeof o.body !== 'string' || typeof o.mac !== 'string' || !/^[0-9a-f]{64}$/.test(o.mac)) return undefined;
    const want = Buffer.from(mac(key, kind, o.body), 'hex');
    return timingSafeEqual(want, Buffer.from(o.mac, 'hex')) ? o.body : undefined;
  } catch {
    return undefined;
  }
}

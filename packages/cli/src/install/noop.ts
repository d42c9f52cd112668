/**
 * The no-op fast path of `ctxpkg install` (no arguments): when nothing that an install reads has
 * changed since the last successful install, answer "up to date" without loading the format
 * core. This module and its imports (paths, hashed-file, seal) use only `node:` built-ins, so
 * `bin.ts` can try it before anything else (test/startup-graph.test.ts pins that).
 *
 * `.ctxpkg/install-state.json` holds a fingerprint: SHA-256 over ctxpkg.json, ctxpkg.lock, the
 * user config, `CTXPKG_REGISTRY`, the merged graph and the sealed record of verified artifacts
 * (`verified.json`, which binds the merged graph to its inputs), the names and sizes of the blob
 * store's files, the sync record and every file it lists. The fast path also re-hashes every
 * artifact the lockfile names in the store (blob files are re-hashed by the full path).
 * Any difference, a pending commit journal or a held project lock sends the command down the
 * full path (which verifies everything and rewrites the state).
 *
 * Every input of the fingerprint can be committed to a repository, so the fingerprint alone is
 * predictable: the state file is sealed to the user (seal.ts, HMAC under the per-user key). A
 * state file from a repository (or another machine) does not open, and the full path runs.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PROJECT_FILES, userConfigPath } from '../paths.js';
import { readHashed, storeFileOf } from '../hashed-file.js';
import { openSealed, sealKey, sealText } from './seal.js';

const STATE = join(PROJECT_FILES.dir, 'install-state.json');
const KIND = 'install-state';
const HEX64 = /^[0-9a-f]{64}$/;

export interface InstallSummary {
  packages: number;
  nodes: number;
  edges: number;
  conflicts: number;
  superseded: number;
}

interface Env {
  env: Record<string, string | undefined>;
  homeDir: string;
}

function text(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '\u0000missing';
  }
}

function findRoot(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, PROJECT_FILES.manifest))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** Names and sizes of the blob store's files (`.ctxpkg/store/blobs/sha256/`): a deleted or truncated blob changes it. */
function blobListing(root: string): string {
  const dir = join(root, PROJECT_FILES.store, 'blobs', 'sha256');
  try {
    return readdirSync(dir)
      .sort()
      .map((f) => `${f}:${statSync(join(dir, f)).size}`)
      .join('\n');
  } catch {
    return '';
  }
}

/** The fingerprint of everything a no-argument install reads (see the module docstring). */
export function installFingerprint(root: string, deps: Env): string {
  const h = createHash('sha256').update('ctxpkg-install-state-v1');
  const part = (s: string): void => {
    h.update(String(s.length)).update(':').update(s);
  };
  part(text(join(root, PROJECT_FILES.manifest)));
  part(text(join(root, PROJECT_FILES.lockfile)));
  part(text(userConfigPath(deps)));
  part(deps.env.CTXPKG_REGISTRY ?? '');
  part(text(join(root, PROJECT_FILES.mergedGraph)));
  part(text(join(root, PROJECT_FILES.dir, 'verified.json')));
  part(blobListing(root));
  const record = text(join(root, PROJECT_FILES.dir, 'sync.json'));
  part(record);
  try {
    const r = JSON.parse(record) as { entries?: Array<{ path?: unknown }> };
    for (const e of r.entries ?? []) if (typeof e.path === 'string') part(text(join(root, e.path)));
  } catch {
    /* no record: nothing synced */
  }
  return h.digest('hex');
}

/**
 * Record the state after a successful full install (called by the install command), sealed to the
 * user. Without a sealing key (the user dir cannot be written) any old state is removed instead.
 */
export function writeInstallState(root: string, deps: Env, summary: InstallSummary): void {
  const path = join(root, STATE);
  const key = sealKey(deps, true);
  if (!key) {
    rmSync(path, { force: true });
    return;
  }
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, sealText(key, KIND, JSON.stringify({ format: 'ctxpkg-install-state-v1', fingerprint: installFingerprint(root, deps), summary })));
  renameSync(tmp, path);
}

/**
 * Lines to print when a no-argument install is a no-op, or undefined to take the full path.
 * Never throws: any doubt means "take the full path".
 */
export function tryNoopInstall(deps: Env & { cwd: string }): string[] | undefined {
  try {
    const root = findRoot(deps.cwd);
    if (!root) return undefined;
    if (existsSync(join(root, PROJECT_FILES.dir, 'txn.json')) || existsSync(join(root, PROJECT_FILES.dir, 'lock'))) return undefined;
    const body = openSealed(sealKey(deps, false), KIND, readFileSync(join(root, STATE), 'utf8'));
    if (body === undefined) return undefined;
    const state = JSON.parse(body) as { fingerprint?: unknown; summary?: InstallSummary };
    if (typeof state.fingerprint !== 'string' || !state.summary) return undefined;
    if (state.fingerprint !== installFingerprint(root, deps)) return undefined;
    const lock = JSON.parse(readFileSync(join(root, PROJECT_FILES.lockfile), 'utf8')) as { packages?: Record<string, { artifact_sha256?: unknown }> };
    for (const p of Object.values(lock.packages ?? {})) {
      const sha = p.artifact_sha256;
      if (typeof sha !== 'string' || !HEX64.test(sha)) return undefined;
      const read = readHashed(storeFileOf(root, sha), sha);
      if (read === undefined || !('bytes' in read)) return undefined; // missing or corrupt
    }
    const s = state.summary;
    const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;
    return [
      'up to date',
      `${plural(s.packages, 'package')} installed, 0 downloaded, no network`,
      `merged graph: ${s.nodes} nodes (0 added), ${s.edges} edges, ${plural(s.conflicts, 'conflict')}, ${s.superseded} superseded`,
    ];
  } catch {
    return undefined;
  }
}

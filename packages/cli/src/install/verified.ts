/**
 * `.ctxpkg/verified.json`: what this user's ctxpkg verified, sealed to the user (seal.ts).
 *
 * - `artifacts`: per artifact SHA-256 in the store, the facts established when its bytes were
 *   fetched and fully verified (format, integrity, signature policy, name/version, signer): name,
 *   version, the registry (or `file:` origin) they came from, integrity, signer, content hash, the
 *   manifest's dependencies, and whether the registry listed the version as yanked at the last
 *   contact. A store file is used without fetching it again only when this record names its hash
 *   with the same name, version, registry and signer: a store file committed to a repository is
 *   not in the record (or the record does not open) and is fetched from its registry again, so
 *   the registry is never bypassed.
 * - `merged`: the artifact list `merged.json` was built from and the SHA-256 of its text. The
 *   merged graph is reused only when both match (and the record opens); otherwise it is rebuilt.
 *
 * The record is rewritten after every install that changed anything; a crash in between leaves
 * an older record, which only costs a refetch or a rebuild.
 */
import { createHash } from 'node:crypto';
import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { readTextIfExists, writeFileAtomic } from '../fsutil.js';
import { PROJECT_FILES } from '../paths.js';
import { openSealed, sealText } from './seal.js';
import { sameRegistry } from './registry-url.js';

const KIND = 'verified-artifacts';
/** Path of the record relative to the project root. */
export const VERIFIED_FILE = join(PROJECT_FILES.dir, 'verified.json');
const HEX64 = /^[0-9a-f]{64}$/;

/** A manifest dependency (`{name, version_req, optional}`, FORMAT-FACTS §7.1). */
export interface ManifestDep {
  name: string;
  version_req: string;
  optional: boolean;
}

/** Facts of one verified artifact. */
export interface ArtifactFacts {
  name: string;
  version: string;
  /** Registry base URL or `file:<path>` the bytes came from. */
  registry: string;
  integrity_sha256: string;
  /** '' when unsigned (signature policy off). */
  signer_public_key: string;
  content_hash: string;
  /** The manifest's dependencies, as declared. */
  dependencies: ManifestDep[];
  /** Yanked at the last registry contact; absent when unknown (local files, offline installs). */
  yanked?: boolean;
}

export interface VerifiedRecord {
  artifacts: Map<string, ArtifactFacts>;
  merged?: { inputs: string[]; sha256: string };
}

const str = (v: unknown): v is string => typeof v === 'string';

function parseFacts(v: unknown): ArtifactFacts | undefined {
  const o = v as Record<string, unknown>;
  if (!o || typeof o !== 'object' || ![o.name, o.version, o.registry, o.integrity_sha256, o.signer_public_key, o.content_hash].every(str)) return undefined;
  if (!Array.isArray(o.dependencies)) return undefined;
  const deps: ManifestDep[] = [];
  for (const d of o.dependencies as Array<Record<string, unknown>>) {
    if (!d || !str(d.name) || !str(d.version_req) || typeof d.optional !== 'boolean') return undefined;
    deps.push({ name: d.name, version_req: d.version_req, optional: d.optional });
  }
  const f: ArtifactFacts = {
    name: o.name as string,
    version: o.version as string,
    registry: o.registry as string,
    integrity_sha256: o.integrity_sha256 as string,
    signer_public_key: o.signer_public_key as string,
    content_hash: o.content_hash as string,
    dependencies: deps,
  };
  if (typeof o.yanked === 'boolean') f.yanked = o.yanked;
  return f;
}

/** Read the record; an absent, unsealed (wrong key, edited, committed) or malformed file is an empty record. */
export function readVerified(root: string, key: Buffer | undefined): VerifiedRecord {
  const empty: VerifiedRecord = { artifacts: new Map() };
  const body = openSealed(key, KIND, readTextIfExists(join(root, VERIFIED_FILE)));
  if (body === undefined) return empty;
  try {
    const o = JSON.parse(body) as { artifacts?: Record<string, unknown>; merged?: { inputs?: unknown; sha256?: unknown } };
    const rec: VerifiedRecord = { artifacts: new Map() };
    for (const [sha, v] of Object.entries(o.artifacts ?? {})) {
      const f = parseFacts(v);
      if (HEX64.test(sha) && f) rec.artifacts.set(sha, f);
    }
    const m = o.merged;
    if (m && Array.isArray(m.inputs) && m.inputs.every(str) && str(m.sha256)) rec.merged = { inputs: m.inputs as string[], sha256: m.sha256 };
    return rec;
  } catch {
    return empty;
  }
}

/** Write the record sealed under `key` (sorted, deterministic). Without a key nothing is kept. */
export function writeVerified(root: string, key: Buffer | undefined, rec: VerifiedRecord): void {
  const path = join(root, VERIFIED_FILE);
  if (!key) {
    if (existsSync(path)) unlinkSync(path);
    return;
  }
  const artifacts: Record<string, ArtifactFacts> = {};
  for (const sha of [...rec.artifacts.keys()].sort()) artifacts[sha] = rec.artifacts.get(sha) as ArtifactFacts;
  const body = JSON.stringify({ artifacts, ...(rec.merged ? { merged: rec.merged } : {}) });
  writeFileAtomic(path, sealText(key, KIND, body));
}

/**
 * True when `text` (the caller's one read of `.ctxpkg/graph/merged.json`) is exactly the text
 * this user's `ctxpkg install` built: the sealed record (under `key`) binds its SHA-256. Checking
 * the text the caller will use — not the file again — leaves no window between check and use.
 * Never throws.
 */
export function mergedTextSealed(root: string, key: Buffer | undefined, text: string): boolean {
  const sealed = readVerified(root, key).merged;
  return sealed !== undefined && createHash('sha256').update(text, 'utf8').digest('hex') === sealed.sha256;
}

/**
 * `mergedTextSealed` for the bytes of the caller's one read of merged.json: the record binds the
 * SHA-256 of the UTF-8 text install wrote, which is the SHA-256 of these bytes exactly when they
 * are that text (bytes that are not valid UTF-8 never match). Hashing the bytes skips re-encoding
 * a decoded copy (40 MB for 50k nodes). Never throws.
 */
export function mergedBytesSealed(root: string, key: Buffer | undefined, bytes: Uint8Array): boolean {
  const sealed = readVerified(root, key).merged;
  return sealed !== undefined && createHash('sha256').update(bytes).digest('hex') === sealed.sha256;
}

/**
 * True when `.ctxpkg/graph/merged.json` is the text this user's `ctxpkg install` built (the
 * sealed record binds its SHA-256). For readers of the merged graph (render, sync, mcp) that must
 * not deliver a merged.json committed to a repository before the first install. Never throws.
 */
export function mergedGraphSealed(root: string, key: Buffer | undefined): boolean {
  try {
    const text = readTextIfExists(join(root, PROJECT_FILES.mergedGraph));
    return text !== undefined && mergedTextSealed(root, key, text);
  } catch {
    return false;
  }
}

/**
 * The facts of a store artifact when they vouch for `want` (same name, version, equivalent
 * registry, and — when one is pinned — the same signer), else undefined.
 */
export function trustedFacts(
  rec: VerifiedRecord,
  sha: string,
  want: { name: string; version: string; registry: string; signer?: string; requireSignature: boolean },
): ArtifactFacts | undefined {
  const f = rec.artifacts.get(sha);
  if (!f || f.name !== want.name || f.version !== want.version || !sameRegistry(f.registry, want.registry)) return undefined;
  if (want.signer !== undefined && want.signer !== f.signer_public_key) return undefined;
  if (want.requireSignature && f.signer_public_key === '') return undefined;
  return f;
}

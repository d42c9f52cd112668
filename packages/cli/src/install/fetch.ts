/**
 * Fetch and verify the planned packages (issue 5 item 5), bounded parallelism, nothing written.
 *
 * For each planned package, in this order:
 * 1. bytes downloaded while resolving: verified in full;
 * 2. a store artifact that `.ctxpkg/verified.json` vouches for (same name, version, registry and
 *    pinned signer; verified.ts): re-hashed and used without parsing;
 * 3. otherwise fetched — from its registry (the configured URL), or for a `file:` origin by
 *    reading the file again — and verified in full (artifact hash, format, signature policy,
 *    name/version, pinned signer). A store file the record does not vouch for (e.g. committed to
 *    the repository) is never trusted: the registry is not bypassed.
 */
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';
import { createProgress } from '../progress.js';
import type { Session } from '../session.js';
import { readArtifact } from '../store.js';
import { downloadLocked } from './checksum.js';
import { mapBounded } from './pool.js';
import type { LockState, Planned, VerifiedEntry } from './types.js';
import { trustedFacts, type ArtifactFacts, type VerifiedRecord } from './verified.js';
import { allowOutsideFiles, readLocalFile } from './local-file.js';
import type { RegistrySource } from './source.js';
import { verifyArtifact } from './verify.js';

export interface FetchInput {
  root: string;
  session: Session;
  planned: Planned[];
  before: LockState;
  record: VerifiedRecord;
  requireSignature: boolean;
  acceptNewKey: boolean;
  /** Packages whose new signer key their registry's log vouches for (accepted without --accept-new-key). */
  loggedSigners?: ReadonlySet<string>;
  concurrency: number;
  stderr: CliDeps['stderr'];
  /** Receives the registry's yanked answer of each download (install/yanked.ts). */
  source?: RegistrySource;
}

export interface FetchResult {
  entries: VerifiedEntry[];
  /** Registry downloads made (network requests). */
  downloads: number;
  /** Local `file:` packages read again because the store did not hold them. */
  localReads: number;
}

function fromFacts(p: Planned, f: ArtifactFacts, bytes: Uint8Array): VerifiedEntry {
  return {
    name: p.name,
    version: p.version,
    registry: p.registry,
    artifact_sha256: p.expectedSha,
    integrity_sha256: f.integrity_sha256,
    signer_public_key: f.signer_public_key,
    dependencies: p.dependencies,
    bytes,
    content_hash: f.content_hash,
    manifestDependencies: f.dependencies,
    fromStore: true,
  };
}

/** Fetch and verify every planned package. Throws the verification codes, `E_NOT_FOUND`, network codes. */
export async function fetchAndVerify(input: FetchInput): Promise<FetchResult> {
  const { root, before, record } = input;
  const vouched = (p: Planned): ArtifactFacts | undefined =>
    p.bytes
      ? undefined
      : trustedFacts(record, p.expectedSha, {
          name: p.name,
          version: p.version,
          registry: p.registry,
          signer: before.packages.get(p.name)?.signer_public_key,
          requireSignature: input.requireSignature,
        });
  const toFetch = input.planned.filter((p) => !p.bytes && !vouched(p)).length;
  const bar = createProgress(input.stderr, 'downloading', { unit: 'count' });
  let done = 0;
  let downloads = 0;
  let localReads = 0;
  const entries = await mapBounded(input.planned, input.concurrency, async (p) => {
    const facts = vouched(p);
    if (facts) {
      let stored: Uint8Array | undefined;
      try {
        stored = readArtifact(root, p.expectedSha);
      } catch {
        stored = undefined; // corrupt store file: fetch again below
      }
      if (stored) return fromFacts(p, facts, stored);
    }
    let bytes = p.bytes;
    const onYanked = (y: boolean): void => input.source?.noteYanked(p.name, p.version, y);
    if (!bytes) {
      if (p.fetchFrom.startsWith('file:')) {
        // The hash check below refuses the file if it changed since it was locked.
        try {
          bytes = readLocalFile(root, p.fetchFrom.slice(5), { allowOutside: allowOutsideFiles(input.session.settings.env), label: p.fetchFrom });
        } catch (err) {
          if (isCtxpkgError(err) && err.code === 'E_NOT_FOUND') throw new CtxpkgError('E_NOT_FOUND', `${p.name} is locked from ${p.fetchFrom}, which cannot be read: ${err.message}`);
          throw err;
        }
        localReads++;
      } else {
        downloads++;
        bytes =
          p.expectedFrom === 'lockfile'
            ? await downloadLocked(input.session.client, p, onYanked)
            : await input.session.client.download(p.fetchFrom, p.name, p.version, p.expectedSha, { onYanked });
      }
      bar.update(++done, toFetch);
    }
    const v = await verifyArtifact(bytes, {
      requireSignature: input.requireSignature,
      acceptNewKey: input.acceptNewKey || input.loggedSigners?.has(p.name) === true,
      name: p.name,
      version: p.version,
      registry: p.registry,
      expectedSha: p.expectedSha,
      ...(p.fetchFrom.startsWith('file:')
        ? {
            expectedFrom: 'ctxpkg.lock',
            bytesFrom: `bytes of ${p.fetchFrom.slice(5)}`,
            mismatchHint: `the file changed since it was locked; if the new file is the one you want, run \`ctxpkg install ${p.fetchFrom.slice(5)}\` to lock it again. Nothing was installed`,
          }
        : { expectedFrom: p.expectedFrom === 'lockfile' ? 'ctxpkg.lock' : 'the registry index' }),
      pinnedSigner: before.packages.get(p.name)?.signer_public_key,
      fromStore: false,
    });
    v.dependencies = p.dependencies;
    return v;
  });
  bar.done();
  return { entries, downloads, localReads };
}

/**
 * Explaining an artifact checksum mismatch of a package installed from ctxpkg.lock by the source
 * of every value (issue 5 acceptance check: a tampered lockfile was reported as "the registry's
 * header disagrees with its index" although the expected value came from ctxpkg.lock).
 *
 * When the hash recorded in ctxpkg.lock does not match what the registry serves (its
 * `x-ctxpkg-sha256` header or the downloaded bytes), the registry index is read to tell the two
 * causes apart: the registry index and the bytes agree with each other but not with ctxpkg.lock
 * (the lockfile was edited, or the registry changed a published version), or the registry serves
 * bytes that differ from its own index (a registry or transport fault). Either way nothing is
 * accepted: the user decides, and the hint says how.
 */
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format';
import type { RegistryClient } from '../client.js';
import { sha256Bytes } from '../store.js';
import type { Planned } from './types.js';

/** What each source says about one artifact's SHA-256 (64 lowercase hex each). */
export interface ChecksumFacts {
  /** `name@version`. */
  id: string;
  name: string;
  /** The value recorded in ctxpkg.lock. */
  lockfile: string;
  /** The registry index's value; null = the index does not list the version; undefined = unreadable. */
  index?: string | null;
  /** The registry's `x-ctxpkg-sha256` response header, when seen. */
  header?: string;
  /** The SHA-256 of the downloaded bytes, when downloaded. */
  bytes?: string;
}

/** Message and hint for `facts` (pure; exported for tests). Code `E_ARTIFACT_CHECKSUM`. */
export function lockedChecksumError(f: ChecksumFacts): CtxpkgError {
  const said: string[] = [];
  if (f.index === null) said.push('the registry index does not list this version');
  else if (f.index === undefined) said.push('the registry index could not be read');
  else said.push(`the registry index lists ${f.index}`);
  if (f.header !== undefined) said.push(`its x-ctxpkg-sha256 response header says ${f.header}`);
  if (f.bytes !== undefined) said.push(`the downloaded bytes hash to ${f.bytes}`);
  const served = [f.header, f.bytes].filter((v): v is string => v !== undefined);
  const registryConsistent = typeof f.index === 'string' && served.every((v) => v === f.index);
  let hint: string;
  if (registryConsistent && f.index !== f.lockfile) {
    hint =
      'ctxpkg.lock was modified, or the registry changed the bytes of a published version (published versions must never change). ' +
      'Review the lockfile\'s history (`git log -p ctxpkg.lock`) and restore it if it was edited. Only if you trust the registry\'s current bytes: ' +
      `remove the "${f.name}" entry from ctxpkg.lock, run \`ctxpkg install\` to lock it again, and review the lockfile diff before committing. Nothing was installed`;
  } else if (f.index === f.lockfile) {
    hint = 'ctxpkg.lock and the registry index agree, but the registry (or something between you and it) served other bytes; nothing was installed. Retry, and report it to the registry operator if it persists';
  } else if (f.index === null) {
    hint = `the registry no longer lists the locked version; check with the registry operator, or move to a listed version (\`ctxpkg update ${f.name}\`). Nothing was installed`;
  } else {
    hint = 'ctxpkg.lock, the registry index and the served bytes do not agree; nothing was installed. Check `git log -p ctxpkg.lock` and report the registry\'s answers to its operator';
  }
  return new CtxpkgError('E_ARTIFACT_CHECKSUM', `${f.id}: ctxpkg.lock records artifact SHA-256 ${f.lockfile}, but ${said.join(', ')}; refusing to install`, {
    hint,
    details: {
      package: f.id,
      expected: f.lockfile,
      expected_from: 'ctxpkg.lock',
      lockfile: f.lockfile,
      index: f.index ?? null,
      ...(f.header !== undefined ? { header: f.header } : {}),
      ...(f.bytes !== undefined ? { downloaded: f.bytes, found: f.bytes } : { found: f.header }),
    },
  });
}

/**
 * Download a locked package (`p.expectedFrom === 'lockfile'`) and check its bytes against the
 * lockfile; on any disagreement read the registry index (and, when the header already disagreed,
 * the bytes) and throw `lockedChecksumError`. Throws the client's codes otherwise.
 */
export async function downloadLocked(client: RegistryClient, p: Planned, onYanked?: (yanked: boolean) => void): Promise<Uint8Array> {
  const id = `${p.name}@${p.version}`;
  let bytes: Uint8Array | undefined;
  let header: string | undefined;
  try {
    bytes = await client.download(p.fetchFrom, p.name, p.version, p.expectedSha, { expectedFrom: 'ctxpkg.lock', onYanked });
  } catch (err) {
    if (!isCtxpkgError(err) || err.code !== 'E_ARTIFACT_CHECKSUM') throw err;
    header = (err.details as { header?: string } | undefined)?.header;
  }
  const found = bytes ? sha256Bytes(bytes) : undefined;
  if (bytes && found === p.expectedSha) return bytes;
  let index: string | null | undefined;
  try {
    const idx = await client.index(p.fetchFrom, p.name);
    index = idx.versions.find((v) => v.version === p.version)?.artifact_sha256 ?? null;
  } catch {
    index = undefined;
  }
  let bytesSha = found;
  if (bytesSha === undefined) {
    try {
      bytesSha = sha256Bytes(await client.download(p.fetchFrom, p.name, p.version));
    } catch {
      bytesSha = undefined;
    }
  }
  throw lockedChecksumError({ id, name: p.name, lockfile: p.expectedSha, index, header, bytes: bytesSha });
}

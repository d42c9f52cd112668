/**
 * Yanked status of installed packages for the install report and `.ctxpkg/verified.json`
 * (issue 5 acceptance check: after `unyank`, a later install still warned "is yanked" from the
 * record of an earlier run).
 *
 * The source of truth is the registry as contacted in this run: its index, or its
 * `x-ctxpkg-yanked` answer on a download (source.ts `noteYanked`; issue 11 item 9: a fresh clone
 * restoring a yanked version from ctxpkg.lock downloads it, has no record yet, and must warn).
 * When the run contacted a registry anyway (it resolved, or downloaded), the index of every
 * package whose status is still unknown and that the record does not know as not yanked is read
 * too, so the status is current and recorded for `ls` and later offline runs. When the run made no registry request (the
 * lock is satisfied and the store complete: no network by design), only the record knows, and the
 * report says so (`as_of: 'last_check'`: "was yanked when the registry was last checked").
 */
import type { RegistrySource } from './source.js';
import type { VerifiedRecord } from './verified.js';

export interface YankedStatus {
  /** Yanked as far as known; undefined when unknown. */
  yanked?: boolean;
  /** True when `yanked` comes from an index fetched in this run; false: from the record. */
  current: boolean;
}

/**
 * Status per artifact SHA-256 for the registry packages of `all` (file: packages have none).
 * `contacted`: the run already made registry requests. Index errors are not fatal here (the
 * install itself succeeded): the recorded status is kept and marked as not current.
 */
export async function yankedStatus(
  all: ReadonlyArray<{ name: string; version: string; registry: string; artifact_sha256: string }>,
  source: RegistrySource,
  record: VerifiedRecord,
  contacted: boolean,
): Promise<Map<string, YankedStatus>> {
  const registryPkgs = all.filter((v) => !v.registry.startsWith('file:'));
  if (contacted) {
    const stale = registryPkgs.filter((v) => source.yanked(v.name, v.version) === undefined && record.artifacts.get(v.artifact_sha256)?.yanked !== false);
    await Promise.all(stale.map((v) => source.index(v.name).catch(() => undefined)));
  }
  const out = new Map<string, YankedStatus>();
  for (const v of registryPkgs) {
    const now = source.yanked(v.name, v.version);
    if (now !== undefined) out.set(v.artifact_sha256, { yanked: now, current: true });
    else {
      const recorded = record.artifacts.get(v.artifact_sha256)?.yanked;
      out.set(v.artifact_sha256, recorded === undefined ? { current: false } : { yanked: recorded, current: false });
    }
  }
  return out;
}

/** One report line's data: `as_of: 'last_check'` when not current; `kept`/`olderAllowed` from update. */
export interface YankedReportEntry {
  name: string;
  version: string;
  as_of?: 'last_check';
  kept?: true;
  olderAllowed?: string;
  /** Installed in this run because the command named exactly this version (`install @x/y@1.0.0`), not because a lockfile pinned it. */
  requested?: true;
}

/** The installed packages known as yanked, in the order of `all` (sorted by name by the caller). */
export function yankedReport(
  all: ReadonlyArray<{ name: string; version: string; artifact_sha256: string }>,
  status: ReadonlyMap<string, YankedStatus>,
  yankedKept: ReadonlyArray<{ name: string; version: string; olderAllowed?: string }>,
): YankedReportEntry[] {
  return all
    .filter((v) => status.get(v.artifact_sha256)?.yanked === true)
    .map((v) => {
      const kept = yankedKept.find((k) => k.name === v.name && k.version === v.version);
      const asOf = status.get(v.artifact_sha256)?.current ? {} : { as_of: 'last_check' as const };
      return { name: v.name, version: v.version, ...asOf, ...(kept ? { kept: true as const, ...(kept.olderAllowed ? { olderAllowed: kept.olderAllowed } : {}) } : {}) };
    });
}

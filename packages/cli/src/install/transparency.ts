/**
 * The install pipeline's transparency-log step (spec/transparency.md §5, §6): every package planned
 * from an index fetched in this run is checked against its registry's log (tlog/check.ts) before
 * anything is downloaded; a version whose signer key differs from the one pinned in ctxpkg.lock is
 * accepted without `--accept-new-key` when the log shows an owner added that key (and it is
 * reported); after the download, each package must be signed by the key the log has for it.
 * Registries that serve no log are skipped (and were never seen serving one).
 */
import { CtxpkgError, type LockLogRecord } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';
import type { Session } from '../session.js';
import { LogFetcher } from '../tlog/fetcher.js';
import { DEFAULT_MAX_AGE_SECONDS, LogChecker, parseMaxAge } from '../tlog/check.js';
import type { RegistrySource } from './source.js';
import type { LockState, Planned, VerifiedEntry } from './types.js';

/** Options of the transparency step (install/update flags). */
export interface TransparencyOptions {
  /** `--strict`: a frozen log is an error. */
  strict?: boolean;
  /** `--log-max-age` (`24h`); else `CTXPKG_LOG_MAX_AGE`; else 24 h. */
  maxAge?: string;
}

/** A signer key change the log vouched for. */
export interface LoggedKeyChange {
  name: string;
  version: string;
  from: string;
  to: string;
  /** Log index of the `key-add` entry. */
  added_at: number;
}

/** What the step found, for the rest of the pipeline and the report. */
export interface TransparencyResult {
  /** Lock records of the checked packages. */
  records: Map<string, LockLogRecord>;
  /** The signer the log has for each checked package. */
  signers: Map<string, string>;
  /** Packages whose new signer key the log vouches for (accepted without --accept-new-key). */
  keyChanges: LoggedKeyChange[];
  /** Registries checked: URL, origin, tree size, checkpoint age in seconds. */
  registries: Array<{ registry: string; origin: string; size: number; age_seconds: number | null; first_use: boolean; seen_before: boolean }>;
  warnings: string[];
  /** Log requests made (checkpoint, tiles). */
  requests: number;
}

/** The allowed checkpoint age in seconds from the flag, the environment, or the default. */
export function maxAgeSeconds(opts: TransparencyOptions, env: Record<string, string | undefined>): number {
  const text = opts.maxAge ?? env.CTXPKG_LOG_MAX_AGE;
  return text === undefined || text.trim() === '' ? DEFAULT_MAX_AGE_SECONDS : parseMaxAge(text);
}

/**
 * Check the planned packages resolved from an index in this run. Stores the accepted checkpoints
 * for this user when every check passed. Throws the log codes (tlog/check.ts).
 */
export async function checkTransparency(
  planned: readonly Planned[],
  source: RegistrySource,
  session: Session,
  before: LockState,
  opts: TransparencyOptions,
  deps: CliDeps,
): Promise<TransparencyResult> {
  const fetcher = new LogFetcher(session.client, session.settings);
  const checker = new LogChecker(fetcher, deps, { strict: opts.strict === true, maxAgeSeconds: maxAgeSeconds(opts, deps.env) });
  const result: TransparencyResult = { records: new Map(), signers: new Map(), keyChanges: [], registries: [], warnings: checker.warnings, requests: 0 };
  const fromIndex = planned.filter((p) => p.expectedFrom === 'index' && !p.registry.startsWith('file:'));
  const seen = new Set<string>();
  for (const p of fromIndex) {
    const view = await checker.view(p.fetchFrom);
    if (!view) continue;
    if (!seen.has(view.registry)) {
      seen.add(view.registry);
      result.registries.push({ registry: view.registry, origin: view.origin, size: view.latest.size, age_seconds: view.age, first_use: view.firstUse, seen_before: view.seenBefore });
    }
    const idx = await source.index(p.name);
    const locked = before.packages.get(p.name);
    const sameVersion = locked !== undefined && locked.version === p.version && locked.artifact_sha256 === p.expectedSha;
    const recorded = sameVersion ? locked.log : undefined;
    const r = await checker.checkVersion(view, idx, p.version, locked?.log ? { record: locked.log, sameVersion } : undefined);
    const entry = idx.versions.find((v) => v.version === p.version);
    if (entry && entry.artifact_sha256 !== p.expectedSha) {
      throw new CtxpkgError('E_LOG_PROOF', `${p.name}@${p.version}: the planned artifact ${p.expectedSha} is not the one the log proves (${entry.artifact_sha256})`);
    }
    result.records.set(p.name, recorded ?? r.record);
    result.signers.set(p.name, r.signer);
    if (locked && locked.signer_public_key !== '' && locked.signer_public_key !== r.signer) {
      result.keyChanges.push({ name: p.name, version: p.version, from: locked.signer_public_key, to: r.signer, added_at: r.keyAddedAt });
    }
  }
  await checker.save();
  result.requests = fetcher.requests;
  return result;
}

/**
 * After download and verification: every checked package must be signed by the key its log
 * entry names. Throws `E_LOG_PROOF`.
 */
export function checkLoggedSigners(entries: readonly VerifiedEntry[], t: TransparencyResult): void {
  for (const e of entries) {
    const want = t.signers.get(e.name);
    if (want !== undefined && want !== e.signer_public_key) {
      throw new CtxpkgError('E_LOG_PROOF', `${e.name}@${e.version} is signed by ${e.signer_public_key || 'no key'}, but the log says ${want} signed it`, {
        hint: 'the registry serves bytes other than the ones it logged; nothing was installed',
      });
    }
  }
}

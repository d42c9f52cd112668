/**
 * What a client remembers about each registry's transparency log (spec/transparency.md §5.1): per
 * user, per registry URL, in `<user dir>/transparency/<first 16 hex of SHA-256(URL)>.json` — the
 * pinned origin and verifier key, the last checkpoint it accepted, the witnesses it requires and
 * the `log watch` positions. Written atomically; a missing file means "never seen".
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { readTextIfExists, writeFileAtomic } from '../fsutil.js';
import { userDir } from '../paths.js';

export interface LogState {
  /** The registry base URL (normalized) the state belongs to. */
  registry: string;
  /** The log's origin (checkpoint first line). */
  origin: string;
  /** The pinned verifier key (signed-note vkey). */
  key: string;
  /** The last checkpoint accepted (signed note), if any. */
  checkpoint?: string;
  /** Witness cosigner vkeys this user requires for this registry. */
  witnesses: string[];
  /** `log watch` positions: namespace (`@acme`) → next log index to read. */
  watch: Record<string, number>;
  /**
   * Per package, the largest tree an index of it was proven against: a later index proven against
   * a smaller tree shows an older state of the package (a rollback; spec/transparency.md §5.4).
   */
  packages: Record<string, number>;
}

/** The state file of `registry` for this user. */
export function logStatePath(deps: Pick<CliDeps, 'env' | 'homeDir'>, registry: string): string {
  const id = createHash('sha256').update(registry).digest('hex').slice(0, 16);
  return join(userDir(deps), 'transparency', `${id}.json`);
}

/** Read the state of `registry`; undefined when this user never accepted its log. Throws `E_INVALID_JSON`. */
export function readLogState(deps: Pick<CliDeps, 'env' | 'homeDir'>, registry: string): LogState | undefined {
  const path = logStatePath(deps, registry);
  const text = readTextIfExists(path);
  if (text === undefined) return undefined;
  let v: Partial<LogState>;
  try {
    v = JSON.parse(text) as Partial<LogState>;
  } catch {
    throw new CtxpkgError('E_INVALID_JSON', `${path} is not JSON`, { hint: 'delete it to trust the registry log again from scratch (you lose its pinned key and checkpoint)' });
  }
  if (typeof v.origin !== 'string' || typeof v.key !== 'string' || v.registry !== registry) {
    throw new CtxpkgError('E_INVALID_JSON', `${path} is not a transparency state of ${registry}`, { hint: 'delete it to trust the registry log again from scratch' });
  }
  return {
    registry,
    origin: v.origin,
    key: v.key,
    ...(typeof v.checkpoint === 'string' ? { checkpoint: v.checkpoint } : {}),
    witnesses: Array.isArray(v.witnesses) ? v.witnesses.filter((w): w is string => typeof w === 'string') : [],
    watch: v.watch && typeof v.watch === 'object' ? Object.fromEntries(Object.entries(v.watch).filter(([, n]) => Number.isSafeInteger(n))) : {},
    packages: v.packages && typeof v.packages === 'object' ? Object.fromEntries(Object.entries(v.packages).filter(([, n]) => Number.isSafeInteger(n))) : {},
  };
}

/** Write the state of `state.registry` atomically (sorted keys, LF). */
export function writeLogState(deps: Pick<CliDeps, 'env' | 'homeDir'>, state: LogState): void {
  const out = {
    registry: state.registry,
    origin: state.origin,
    key: state.key,
    ...(state.checkpoint ? { checkpoint: state.checkpoint } : {}),
    witnesses: [...state.witnesses].sort(),
    watch: Object.fromEntries(Object.keys(state.watch).sort().map((k) => [k, state.watch[k]])),
    packages: Object.fromEntries(Object.keys(state.packages).sort().map((k) => [k, state.packages[k]])),
  };
  writeFileAtomic(logStatePath(deps, state.registry), JSON.stringify(out, null, 2) + '\n');
}

/**
 * Version ordering for `index.json` (spec/registry.md "Index"; FORMAT-FACTS §9 "Choosing a version").
 *
 * The reference client installs the FIRST non-yanked entry of `versions[]` and ignores `latest`,
 * so the order is the contract:
 *   1. `latest` = the highest non-yanked stable version by SemVer precedence; only when no stable
 *      non-yanked version exists, the highest non-yanked prerelease; null when all are yanked.
 *   2. `versions[0]` is `latest` (when there is one), then every other version — yanked ones
 *      included — by descending precedence (ties cannot exist: equal precedence is refused at
 *      publish; build metadata is compared last only to keep the order total).
 */
import semver from 'semver';

export interface Orderable {
  version: string;
  yanked: boolean;
}

/** Descending SemVer precedence; build metadata breaks ties so the order is total. */
export function compareDesc(a: string, b: string): number {
  const c = semver.compareBuild(b, a);
  if (c !== 0) return c;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The version the index calls latest, or null when every version is yanked (rule 1 above). */
export function pickLatest<T extends Orderable>(entries: readonly T[]): T | null {
  let bestStable: T | null = null;
  let bestPre: T | null = null;
  for (const e of entries) {
    if (e.yanked) continue;
    if (semver.prerelease(e.version) === null) {
      if (bestStable === null || compareDesc(e.version, bestStable.version) < 0) bestStable = e;
    } else if (bestPre === null || compareDesc(e.version, bestPre.version) < 0) {
      bestPre = e;
    }
  }
  return bestStable ?? bestPre;
}

/**
 * Order entries for `versions[]` (rule 2 above). Returns a new array; the input is not changed.
 * Precondition: every `version` is strict SemVer (the publish gate guarantees it).
 */
export function orderVersions<T extends Orderable>(entries: readonly T[]): { latest: T | null; ordered: T[] } {
  const latest = pickLatest(entries);
  const rest = entries.filter((e) => e !== latest).sort((a, b) => compareDesc(a.version, b.version));
  return { latest, ordered: latest ? [latest, ...rest] : rest };
}

/**
 * The precedence key of a strict SemVer version: the version without build metadata. For strict
 * SemVer (no leading zeros in numeric identifiers) two versions have equal precedence exactly
 * when their keys are equal, so a unique constraint on the key enforces HB-03.
 */
export function precedenceKey(version: string): string {
  const plus = version.indexOf('+');
  return plus === -1 ? version : version.slice(0, plus);
}

/**
 * The solver's view of the version source: per package, the finite, sorted list of candidate
 * versions (a "universe"), and each version's validated dependency list. Version sets are
 * bitsets (`bigint`) over a universe: bit 0 stands for "not selected", bit i+1 for
 * `versions[i]` (ascending SemVer order). Everything is cached, so the source is asked at most
 * once per package and once per tried version, and answers are sorted so the result does not
 * depend on the order the source lists them in.
 */
import { CtxpkgError, isCtxpkgError } from '../errors.js';
import { parsePackageName } from '../names.js';
import { evalVersion, parseRange, rangeMatches, type EvalVersion, type VersionRange } from '../versions.js';
import { compareEvalVersions } from '../versions/eval.js';
import type { ResolverDependency, SourceVersion, VersionSource } from './types.js';

/** Bit of "not selected". */
export const ABSENT = 1n;

/** One package's candidates. */
export interface Universe {
  name: string;
  isRoot: boolean;
  /** Candidate versions, ascending precedence. */
  versions: string[];
  /** All valid listed versions (yanked included), ascending; for "available: …" messages. */
  listed: SourceVersion[];
  /** Set when the source said the package does not exist. */
  notFound?: CtxpkgError;
  /** Every bit: all versions and "not selected". */
  full: bigint;
  /** Bits of the versions in `range` (never the absent bit). */
  mask(range: VersionRange): bigint;
  /** Range texts seen for this package by their mask (first text wins), for explanations. */
  labels: Map<bigint, string>;
}

/** A validated dependency with its parsed range. */
export interface Dep extends ResolverDependency {
  range: VersionRange;
}

/** Dependencies of one version, or why the version cannot be used. */
export type DepsResult = { ok: true; deps: Dep[] } | { ok: false; reason: string };

export const versionBit = (i: number): bigint => 1n << BigInt(i + 1);

function makeUniverse(name: string, versions: string[], listed: SourceVersion[], isRoot: boolean, matchAll: boolean, parsedVersions?: EvalVersion[]): Universe {
  const parsed = parsedVersions ?? versions.map((v) => evalVersion(v)!);
  const cache = new Map<string, bigint>();
  const full = (1n << BigInt(versions.length + 1)) - 1n;
  return {
    name,
    isRoot,
    versions,
    listed,
    full,
    labels: new Map(),
    mask(range) {
      let m = cache.get(range.key);
      if (m === undefined) {
        m = 0n;
        for (let i = 0; i < parsed.length; i++) if (matchAll || rangeMatches(range, parsed[i]!)) m |= versionBit(i);
        cache.set(range.key, m);
      }
      return m;
    },
  };
}

/** True when `text` is a valid version of the same precedence as `v`. */
function sameAs(v: EvalVersion, text: string): boolean {
  const t = evalVersion(text);
  return t !== null && compareEvalVersions(v, t) === 0;
}

/** Loads and caches universes and dependency lists from a `VersionSource`. */
export class Provider {
  private readonly universes = new Map<string, Universe>();
  private readonly pending = new Map<string, Promise<Universe>>();
  private readonly depsCache = new Map<string, Promise<DepsResult>>();
  private readonly ranges = new Map<string, VersionRange>();

  constructor(
    private readonly source: VersionSource,
    private readonly root: { key: string; version?: string },
    /** Versions that may be used although yanked (lockfile pins, exact root pins). */
    private readonly yankedAllowed: Map<string, Set<string>>,
  ) {}

  /** Fetch the universes of `names` (concurrently); cached. */
  async load(names: Iterable<string>): Promise<void> {
    await Promise.all([...names].map((n) => this.fetch(n)));
  }

  /** A loaded universe (call `load` first). */
  get(name: string): Universe {
    const u = this.universes.get(name);
    if (!u) throw new CtxpkgError('E_INTERNAL', `resolver: universe of ${name} used before loading`);
    return u;
  }

  private fetch(name: string): Promise<Universe> {
    let p = this.pending.get(name);
    if (!p) {
      p = this.build(name).then((u) => {
        this.universes.set(name, u);
        return u;
      });
      this.pending.set(name, p);
    }
    return p;
  }

  private async build(name: string): Promise<Universe> {
    if (name === this.root.key) {
      const v = this.root.version;
      return makeUniverse(name, [v ?? '0.0.0'], v ? [{ version: v, yanked: false }] : [], true, v === undefined);
    }
    let answer: SourceVersion[];
    try {
      answer = await this.source.listVersions(name);
    } catch (e) {
      if (isCtxpkgError(e) && e.code === 'E_NOT_FOUND') {
        const u = makeUniverse(name, [], [], false, false);
        u.notFound = e;
        return u;
      }
      throw e;
    }
    if (!Array.isArray(answer)) throw new CtxpkgError('E_REGISTRY', `the version list of ${name} is not an array`);
    // One entry per precedence: prefer a non-yanked one, then the smallest text. Each version is
    // parsed once; the sort compares parsed versions.
    const chosen = new Map<string, { entry: SourceVersion; parsed: EvalVersion }>();
    for (const e of answer) {
      const parsed = typeof e?.version === 'string' ? evalVersion(e.version) : null;
      if (parsed === null) continue;
      const entry = { version: e.version, yanked: e.yanked === true };
      const key = `${parsed.major}.${parsed.minor}.${parsed.patch}-${parsed.pre.join('.')}`; // build metadata dropped
      const prev = chosen.get(key)?.entry;
      if (!prev || (prev.yanked && !entry.yanked) || (prev.yanked === entry.yanked && entry.version < prev.version)) chosen.set(key, { entry, parsed });
    }
    const sorted = [...chosen.values()].sort((a, b) => compareEvalVersions(a.parsed, b.parsed));
    const listed = sorted.map((x) => x.entry);
    const allowed = this.yankedAllowed.get(name);
    const usable = sorted.filter(({ entry, parsed }) => !entry.yanked || (allowed !== undefined && [...allowed].some((v) => sameAs(parsed, v))));
    return makeUniverse(name, usable.map((x) => x.entry.version), listed, false, false, usable.map((x) => x.parsed));
  }

  /** Validated, sorted dependencies of `name@version`; cached. */
  dependencies(name: string, version: string): Promise<DepsResult> {
    const key = `${name}@${version}`;
    let p = this.depsCache.get(key);
    if (!p) {
      p = this.loadDeps(name, version);
      this.depsCache.set(key, p);
    }
    return p;
  }

  private async loadDeps(name: string, version: string): Promise<DepsResult> {
    if (name === this.root.key) throw new CtxpkgError('E_INTERNAL', 'resolver: root dependencies are not fetched');
    let raw: unknown;
    try {
      raw = await this.source.dependencies(name, version);
    } catch (e) {
      // Listed but not retrievable: that version cannot be used; other errors abort.
      if (isCtxpkgError(e) && e.code === 'E_NOT_FOUND') return { ok: false, reason: `it could not be fetched (${e.message})` };
      throw e;
    }
    if (!Array.isArray(raw)) return { ok: false, reason: 'its dependency list is malformed' };
    const deps: Dep[] = [];
    for (const d of raw) {
      const depName = (d as { name?: unknown })?.name;
      const req = (d as { version_req?: unknown })?.version_req;
      if (typeof depName !== 'string') return { ok: false, reason: 'its dependency list is malformed' };
      try {
        parsePackageName(depName);
      } catch {
        return { ok: false, reason: `it depends on ${JSON.stringify(depName)}, which is not a scoped @ns/name` };
      }
      if (depName === name) return { ok: false, reason: 'it depends on itself' };
      if (typeof req !== 'string') return { ok: false, reason: `its range for ${depName} is not a string` };
      let range = this.ranges.get(req);
      if (range === undefined) {
        try {
          range = parseRange(req, { mode: 'read' });
        } catch {
          return { ok: false, reason: `its range ${JSON.stringify(req)} for ${depName} is invalid` };
        }
        this.ranges.set(req, range);
      }
      deps.push({ name: depName, version_req: req, optional: (d as { optional?: unknown }).optional === true, range });
    }
    deps.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.version_req < b.version_req ? -1 : a.version_req > b.version_req ? 1 : Number(a.optional) - Number(b.optional)));
    return { ok: true, deps };
  }
}

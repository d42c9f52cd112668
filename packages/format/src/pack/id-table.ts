/**
 * Numbers the id strings of one graph (node ids and edge ends) so the structure passes
 * (sections.ts) work on `Int32Array`s by number instead of on maps keyed by id strings.
 *
 * Why not a `Map<string, number>`: the strings of a freshly `JSON.parse`d graph carry no hash
 * yet, and V8 computes one per string object on its first map operation (every edge end and node
 * id is its own object, ~100 ns each on 50k-node graphs). This table hashes the UTF-16 code units
 * itself, in optimized code, and confirms every hit with `===` (by value), so it is exact.
 *
 * Linear whatever the ids (package text): an insertion or lookup that probes more than
 * `MAX_PROBES` slots (ids crafted to collide) moves the whole table into a `Map` once, which
 * answers every later call. Deterministic: numbers are given in insertion order, whatever the
 * hash does.
 */

/** Probes one operation may take before the table falls back to a `Map`. */
const MAX_PROBES = 64;
/** The most strings a table's array is sized for up front (a larger table grows it). */
const MAX_PRESIZE = 1 << 24;

/**
 * A 32-bit hash of all UTF-16 code units of `s` (murmur3-style mixing, two units per step): the
 * hash `IdTable.addHashed` takes.
 */
export function idHash(s: string): number {
  const n = s.length;
  let h = n ^ 0x2f0b3c9d;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    let k = Math.imul(s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16), 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    h ^= k;
    h = (Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) | 0;
  }
  if (i < n) h ^= Math.imul(s.charCodeAt(i), 0xcc9e2d51);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * A table numbering distinct strings 0, 1, 2, … in insertion order: `ids[k]` is the string
 * numbered `k`. Sized for `expected` strings up front (it grows when more are added).
 *
 * Open addressing with linear probing over one `Int32Array` of (hash, number + 1) pairs (0: an
 * empty slot, so a new table needs no fill): a probe reads one cache line, and the string is
 * compared only when the whole hash matches.
 */
export class IdTable {
  /**
   * The strings by number at `[0, count)`, in an array sized for `expected` strings up front
   * (holes past `count`): pushed one by one, a 75k-string table (the bench graph's) regrew its
   * array ~25 times, ~0.4 MB of young garbage per cold render below the large-object size alone.
   */
  private readonly names: string[];
  /** How many strings are numbered. */
  count = 0;
  /** Slot `p` is `pairs[2p]` (the string's hash) and `pairs[2p + 1]` (its number + 1; 0 when empty). */
  private pairs: Int32Array;
  /** Slots − 1 (a power of two minus one). */
  private mask: number;
  /** Set once an operation probed more than `MAX_PROBES` slots: answers every call from then on. */
  private map: Map<string, number> | undefined;
  private readonly maxProbes: number;

  /** `maxProbes` is for tests (a small bound exercises the `Map` fallback). */
  constructor(expected: number, maxProbes = MAX_PROBES) {
    this.maxProbes = maxProbes;
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.pairs = new Int32Array(cap * 2);
    this.mask = cap - 1;
    this.names = new Array<string>(Math.max(0, Math.min(expected, MAX_PRESIZE)));
  }

  /**
   * The strings, by number (`count` of them). Trims the array to `count` first (in place): read
   * it once the table is complete, or use `idAt` and `count` while strings are still added (an
   * add after a trim grows the array again).
   */
  get ids(): string[] {
    if (this.names.length !== this.count) this.names.length = this.count;
    return this.names;
  }

  /** The string numbered `k` (`k < count`). */
  idAt(k: number): string {
    return this.names[k] as string;
  }

  /** Number `id` next (`count`); returns its number. */
  private append(id: string): number {
    const k = this.count;
    this.names[k] = id;
    this.count = k + 1;
    return k;
  }

  /** The number of `id`, or -1 when it was never added. */
  get(id: string): number {
    if (this.map !== undefined) return this.map.get(id) ?? -1;
    const { pairs, mask, names, maxProbes } = this;
    const h = idHash(id);
    let p = h & mask;
    for (let probes = 0; probes < maxProbes; probes++) {
      const k = (pairs[2 * p + 1] as number) - 1;
      if (k === -1 || (pairs[2 * p] === h && names[k] === id)) return k;
      p = (p + 1) & mask;
    }
    this.toMap();
    return this.get(id);
  }

  /**
   * Reads the slot each of `hashes[0 … count)` starts probing at and, where that slot holds a
   * string of the same hash, the string's length: brings into the cache what `addHashed` of those
   * hashes reads first, all at once (the reads are independent). Returns a value of no meaning
   * (the caller keeps it, so the reads are not optimized away).
   */
  touch(hashes: Int32Array, count: number): number {
    if (this.map !== undefined) return 0;
    const { pairs, mask, names } = this;
    let t = 0;
    for (let j = 0; j < count; j++) {
      const h = hashes[j] as number;
      const p = h & mask;
      const k = (pairs[2 * p + 1] as number) - 1;
      if (k >= 0 && pairs[2 * p] === h) t ^= (names[k] as string).length;
    }
    return t;
  }

  /** The number of `id`, numbering it next (`count`) when it is new. */
  add(id: string): number {
    return this.addHashed(id, idHash(id));
  }

  /** `add(id)` for `h = idHash(id)` computed by the caller (who may hash a batch of strings first). */
  addHashed(id: string, h: number): number {
    if (this.map !== undefined) return this.addToMap(id);
    if ((this.count + 1) * 2 > this.mask + 1) {
      this.grow();
      if (this.map !== undefined) return this.addToMap(id);
    }
    const { pairs, mask, names, maxProbes } = this;
    let p = h & mask;
    for (let probes = 0; probes < maxProbes; probes++) {
      const k = (pairs[2 * p + 1] as number) - 1;
      if (k === -1) {
        pairs[2 * p] = h;
        pairs[2 * p + 1] = this.count + 1;
        return this.append(id);
      }
      if (pairs[2 * p] === h && names[k] === id) return k;
      p = (p + 1) & mask;
    }
    this.toMap();
    return this.addToMap(id);
  }

  /** `add` once the table is a `Map`. */
  private addToMap(id: string): number {
    const map = this.map as Map<string, number>;
    const known = map.get(id);
    if (known !== undefined) return known;
    map.set(id, this.count);
    return this.append(id);
  }

  /** Twice the slots, every string placed again by its kept hash (its number kept). */
  private grow(): void {
    if (this.map !== undefined) return;
    const old = this.pairs;
    const cap = (this.mask + 1) * 2;
    const pairs = new Int32Array(cap * 2);
    const mask = cap - 1;
    for (let q = 0; q < old.length; q += 2) {
      const k1 = old[q + 1] as number;
      if (k1 === 0) continue;
      const h = old[q] as number;
      let p = h & mask;
      let probes = 0;
      while (pairs[2 * p + 1] !== 0 && probes < this.maxProbes) {
        p = (p + 1) & mask;
        probes++;
      }
      if (probes === this.maxProbes) {
        this.toMap();
        return;
      }
      pairs[2 * p] = h;
      pairs[2 * p + 1] = k1;
    }
    this.pairs = pairs;
    this.mask = mask;
  }

  /** Moves every string into a `Map` (collisions beyond `MAX_PROBES`: ids crafted to collide). */
  private toMap(): void {
    const map = new Map<string, number>();
    const names = this.names;
    for (let k = 0; k < this.count; k++) map.set(names[k] as string, k);
    this.map = map;
    this.pairs = new Int32Array(0);
    this.mask = 0;
  }
}

/**
 * True when the qualified node ids `a` and `b` (`<package>#<local id>`, spec/merge.md §2: a
 * package name has no `#`) name nodes of one package — or neither is qualified (a graph of one
 * package, as tests write them). A `contains` or `applies_to` edge acts only then (spec/pack.md
 * §3 "Structure and scope are a package's own"): a package may contradict, reference or
 * supersede another's node, never file it under its own heading or scope it (attack pass 2 of
 * 2026-12-07: an untrusted package's `applies_to` edge moved a trusted rule out of the always-on
 * block into a rule file scoped to a pattern matching nothing). Reads the package part of both
 * ids once, allocates nothing.
 */
export function samePackage(a: string, b: string): boolean {
  const k = a.indexOf('#');
  if (k < 0) return b.indexOf('#') < 0;
  if (b.length <= k || b.charCodeAt(k) !== 35) return false;
  for (let i = 0; i < k; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false;
  return true;
}

/**
 * True when a structural edge (`contains`, `applies_to`, `followed_by`) of a merged graph acts:
 * both its ends are ids of one package (`samePackage`) and that package is among the packages
 * that declared it (`packages`, MergedEdge: the merge records every contributing package). A
 * package may not file, scope or order another package's nodes even between two nodes of that
 * other package (attack pass 4 of 2026-12-07: an untrusted package's edge `@acme/team#S →
 * @acme/team#G` (applies_to) moved the team's rules out of AGENTS.md). An edge that names no
 * package (an empty or missing list: graphs built by hand, as tests do) is judged by its ends
 * alone. spec/pack.md §7.
 */
export function ownEdge(from: string, to: string, packages: readonly string[] | undefined): boolean {
  if (!samePackage(from, to)) return false;
  if (packages === undefined || packages.length === 0) return true;
  for (let i = 0; i < packages.length; i++) {
    const p = packages[i] as string;
    if (from.length > p.length && from.charCodeAt(p.length) === 35 && from.startsWith(p)) return true;
  }
  return false;
}


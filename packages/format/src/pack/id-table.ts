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

/** A 32-bit hash of all UTF-16 code units of `s` (murmur3-style mixing, two units per step). */
function hashOf(s: string): number {
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
 */
export class IdTable {
  /** The strings, by number. */
  readonly ids: string[] = [];
  /** The hash of each string, by number: a probe compares it before the string (no read of a string that only shares a slot). */
  private hashes: Int32Array;
  private slots: Int32Array;
  private mask: number;
  /** Set once an operation probed more than `MAX_PROBES` slots: answers every call from then on. */
  private map: Map<string, number> | undefined;
  private readonly maxProbes: number;

  /** `maxProbes` is for tests (a small bound exercises the `Map` fallback). */
  constructor(expected: number, maxProbes = MAX_PROBES) {
    this.maxProbes = maxProbes;
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.slots = new Int32Array(cap).fill(-1);
    this.mask = cap - 1;
    this.hashes = new Int32Array(cap >>> 1);
  }

  /** The number of `id`, or -1 when it was never added. */
  get(id: string): number {
    if (this.map !== undefined) return this.map.get(id) ?? -1;
    const { slots, mask, ids, hashes, maxProbes } = this;
    const h = hashOf(id);
    let p = h & mask;
    for (let probes = 0; probes < maxProbes; probes++) {
      const k = slots[p] as number;
      if (k === -1 || (hashes[k] === h && ids[k] === id)) return k;
      p = (p + 1) & mask;
    }
    this.toMap();
    return this.get(id);
  }

  /** The number of `id`, numbering it next (`ids.length`) when it is new. */
  add(id: string): number {
    if (this.map !== undefined) {
      const known = this.map.get(id);
      if (known !== undefined) return known;
      this.map.set(id, this.ids.length);
      this.ids.push(id);
      return this.ids.length - 1;
    }
    if ((this.ids.length + 1) * 2 > this.slots.length) {
      this.grow();
      return this.add(id);
    }
    const { slots, mask, ids, hashes, maxProbes } = this;
    const h = hashOf(id);
    let p = h & mask;
    for (let probes = 0; probes < maxProbes; probes++) {
      const k = slots[p] as number;
      if (k === -1) {
        slots[p] = ids.length;
        hashes[ids.length] = h;
        ids.push(id);
        return ids.length - 1;
      }
      if (hashes[k] === h && ids[k] === id) return k;
      p = (p + 1) & mask;
    }
    this.toMap();
    return this.add(id);
  }

  /** Twice the slots, every string placed again by its kept hash (its number kept). */
  private grow(): void {
    const cap = this.slots.length * 2;
    const slots = new Int32Array(cap).fill(-1);
    const mask = cap - 1;
    const n = this.ids.length;
    const hashes = new Int32Array(cap >>> 1);
    hashes.set(this.hashes.subarray(0, n));
    for (let k = 0; k < n; k++) {
      let p = (hashes[k] as number) & mask;
      let probes = 0;
      while (slots[p] !== -1 && probes < this.maxProbes) {
        p = (p + 1) & mask;
        probes++;
      }
      if (probes === this.maxProbes) {
        this.toMap();
        return;
      }
      slots[p] = k;
    }
    this.slots = slots;
    this.mask = mask;
    this.hashes = hashes;
  }

  /** Moves every string into a `Map` (collisions beyond `MAX_PROBES`: ids crafted to collide). */
  private toMap(): void {
    const map = new Map<string, number>();
    const ids = this.ids;
    for (let k = 0; k < ids.length; k++) map.set(ids[k] as string, k);
    this.map = map;
    this.slots = new Int32Array(0);
    this.hashes = new Int32Array(0);
    this.mask = 0;
  }
}

/**
 * An open-addressing hash table from a pair of node indices `(from, to)` to an integer ≥ 0, in
 * one interleaved typed array (`from, to, value` per slot, so a probe touches one cache line):
 * no allocation per entry, so accumulating 10^5–10^6 edges stays linear and light on the
 * garbage collector.
 */
const EMPTY = -1;

export class PairTable {
  private slots: Int32Array;
  private mask: number;
  private size = 0;

  constructor(expected: number) {
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.slots = new Int32Array(cap * 3).fill(EMPTY);
    this.mask = cap - 1;
  }

  /** The slot of `(from, to)`: read it with `valueAt`, fill it with `setAt` (one probe). */
  slotOf(from: number, to: number): number {
    let h = Math.imul(from, 0x9e3779b1) ^ Math.imul(to + 0x7f4a7c15, 0x85ebca77);
    h ^= h >>> 15;
    let i = h & this.mask;
    const s = this.slots;
    for (;;) {
      const b = i * 3;
      if (s[b + 2] === EMPTY || (s[b] === from && s[b + 1] === to)) return i;
      i = (i + 1) & this.mask;
    }
  }

  valueAt(slot: number): number {
    return this.slots[slot * 3 + 2]!;
  }

  /** Store `value` at a slot just returned by `slotOf(from, to)`. */
  setAt(slot: number, from: number, to: number, value: number): void {
    const b = slot * 3;
    const fresh = this.slots[b + 2] === EMPTY;
    this.slots[b] = from;
    this.slots[b + 1] = to;
    this.slots[b + 2] = value;
    if (fresh && ++this.size * 2 > this.mask + 1) this.grow();
  }

  private grow(): void {
    const old = this.slots;
    const cap = (this.mask + 1) * 2;
    this.slots = new Int32Array(cap * 3).fill(EMPTY);
    this.mask = cap - 1;
    for (let b = 0; b < old.length; b += 3) {
      if (old[b + 2] === EMPTY) continue;
      const j = this.slotOf(old[b]!, old[b + 1]!) * 3;
      this.slots[j] = old[b]!;
      this.slots[j + 1] = old[b + 1]!;
      this.slots[j + 2] = old[b + 2]!;
    }
  }
}

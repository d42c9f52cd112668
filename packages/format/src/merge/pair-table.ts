/**
 * An open-addressing hash table from a pair of node indices `(from, to)` to an integer, over
 * typed arrays: no allocation per entry, so accumulating 10^5–10^6 edges stays linear and light
 * on the garbage collector.
 */
export class PairTable {
  private from: Int32Array;
  private to: Int32Array;
  private value: Int32Array;
  private mask: number;
  private size = 0;

  constructor(expected: number) {
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.from = new Int32Array(cap);
    this.to = new Int32Array(cap);
    this.value = new Int32Array(cap).fill(-1);
    this.mask = cap - 1;
  }

  private slot(from: number, to: number): number {
    let h = Math.imul(from, 0x9e3779b1) ^ Math.imul(to + 0x7f4a7c15, 0x85ebca77);
    h ^= h >>> 15;
    let i = h & this.mask;
    while (this.value[i] !== -1 && (this.from[i] !== from || this.to[i] !== to)) i = (i + 1) & this.mask;
    return i;
  }

  /** The slot of `(from, to)`: read it with `valueAt`, fill it with `setAt` (one probe). */
  slotOf(from: number, to: number): number {
    return this.slot(from, to);
  }

  valueAt(slot: number): number {
    return this.value[slot]!;
  }

  /** Store `value` at a slot just returned by `slotOf(from, to)`. */
  setAt(slot: number, from: number, to: number, value: number): void {
    if (this.value[slot] === -1) {
      this.from[slot] = from;
      this.to[slot] = to;
      this.value[slot] = value;
      if (++this.size * 2 > this.mask + 1) this.grow();
      return;
    }
    this.value[slot] = value;
  }

  /** The value stored for `(from, to)`, or -1. */
  get(from: number, to: number): number {
    return this.value[this.slot(from, to)]!;
  }

  /** Store `value` (≥ 0) for `(from, to)`. */
  set(from: number, to: number, value: number): void {
    const i = this.slot(from, to);
    if (this.value[i] === -1) {
      this.from[i] = from;
      this.to[i] = to;
      if (++this.size * 2 > this.mask + 1) {
        this.value[i] = value;
        this.grow();
        return;
      }
    }
    this.value[i] = value;
  }

  private grow(): void {
    const { from, to, value } = this;
    const cap = (this.mask + 1) * 2;
    this.from = new Int32Array(cap);
    this.to = new Int32Array(cap);
    this.value = new Int32Array(cap).fill(-1);
    this.mask = cap - 1;
    for (let i = 0; i < value.length; i++) {
      if (value[i] === -1) continue;
      const j = this.slot(from[i]!, to[i]!);
      this.from[j] = from[i]!;
      this.to[j] = to[i]!;
      this.value[j] = value[i]!;
    }
  }
}

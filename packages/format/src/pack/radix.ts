/**
 * A stable sort of small non-negative integer keys without a comparator, for the pack compiler's
 * per-render sorts (bounds in select.ts, first lines in compile.ts). A typed array's own `sort()`
 * costs far more than its size suggests on Node 20 (a Float64Array of 200 numbers ~20 µs, of 12k
 * ~3.6 ms, of 50k ~20 ms on the shared 2-core bench machine; this sort ~1 ms for 50k there), and a
 * cold render of the 50k bench graph sorted ~300 such arrays; a radix sort over the few bytes the
 * keys use is linear and calls nothing.
 */

/** Below this many keys: insertion sort (fewer steps than a pass over 256 buckets). */
const SMALL = 24;

/** Buckets of one counting pass, at most (keys spanning fewer values are sorted in one pass). */
const ONE_PASS = 4096;

/**
 * Write to `out[0 … n)` the positions `0 … n − 1` ordered by `keys[position]` ascending, equal
 * keys in position order (stable). Every `keys[0 … n)` must be an integer in 0 … 2^31 − 1 (the
 * caller checks; others are not supported). `tmp` is scratch of length ≥ n; `out` too. Linear in
 * `n`: insertion sort below 24 keys; one counting pass when the keys span at most 4,096 values
 * (block bounds, first lines of a file); else a least-significant-digit radix sort of the keys
 * less the least, 8 bits a pass, as many passes as their span needs (four at most).
 */
export function stableOrder(keys: ArrayLike<number>, n: number, out: Int32Array, tmp: Int32Array): void {
  if (n < SMALL) {
    for (let i = 0; i < n; i++) {
      const k = keys[i] as number;
      let j = i;
      while (j > 0 && (keys[out[j - 1] as number] as number) > k) {
        out[j] = out[j - 1] as number;
        j--;
      }
      out[j] = i;
    }
    return;
  }
  let min = keys[0] as number;
  let max = min;
  for (let i = 1; i < n; i++) {
    const k = keys[i] as number;
    if (k > max) max = k;
    else if (k < min) min = k;
  }
  const span = max - min;
  if (span < ONE_PASS) {
    const count = new Int32Array(span + 1);
    for (let i = 0; i < n; i++) count[(keys[i] as number) - min]++;
    let sum = 0;
    for (let d = 0; d <= span; d++) {
      const c = count[d] as number;
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) out[count[(keys[i] as number) - min]++] = i;
    return;
  }
  for (let i = 0; i < n; i++) out[i] = i;
  const count = new Int32Array(256);
  let src = out;
  let dst = tmp;
  for (let shift = 0; shift < 32 && span >>> shift > 0; shift += 8) {
    count.fill(0);
    for (let i = 0; i < n; i++) count[(((keys[src[i] as number] as number) - min) >>> shift) & 255]++;
    let sum = 0;
    for (let d = 0; d < 256; d++) {
      const c = count[d] as number;
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const p = src[i] as number;
      dst[count[(((keys[p] as number) - min) >>> shift) & 255]++] = p;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src !== out) out.set(src.subarray(0, n));
}

/** True when `v` is a key `stableOrder` sorts: an integer in 0 … 2^31 − 1. */
export function isRadixKey(v: number): boolean {
  return v >= 0 && v <= 0x7fffffff && Number.isInteger(v);
}

/** Scratch arrays for `stableOrder`, grown on demand and reused (one per compilation). */
export class RadixScratch {
  private a = new Int32Array(0);
  private b = new Int32Array(0);
  private f = new Float64Array(0);

  /** Two Int32Arrays of length ≥ n (`out`, `tmp` of `stableOrder`; contents unspecified). */
  pair(n: number): [Int32Array, Int32Array] {
    if (this.a.length < n) {
      const size = Math.max(n, 2 * this.a.length);
      this.a = new Int32Array(size);
      this.b = new Int32Array(size);
    }
    return [this.a, this.b];
  }

  /** A Float64Array of length ≥ n (contents unspecified). */
  numbers(n: number): Float64Array {
    if (this.f.length < n) this.f = new Float64Array(Math.max(n, 2 * this.f.length));
    return this.f;
  }
}

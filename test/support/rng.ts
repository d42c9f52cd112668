/**
 * The deterministic PRNG of tests and benches: mulberry32 (32-bit state, period 2^32), uniform in
 * [0, 1). The same seed gives the same sequence on every machine, so a recorded case, a golden
 * file or a failing schedule can be replayed (`__tests__/random-packs.ts`, bench/render/graph.ts,
 * test/registry-crash.test.ts).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

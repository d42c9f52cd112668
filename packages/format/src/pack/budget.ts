/**
 * Byte arithmetic of the pack compiler (spec/pack.md "Budget"): exact UTF-8 lengths, the
 * bytes ↔ tokens estimate, and the largest-remainder split of a byte budget across sections.
 */
import { nodeBuiltin } from '../builtin.js';
import { CtxpkgError } from '../errors.js';
import { MAX_BUDGET_BYTES } from './policy.js';
import { BYTES_PER_TOKEN } from './types.js';

/** Texts shorter than this are measured by the loop (a native call costs more than it saves). */
const NATIVE_MIN = 16;

/** Texts whose UTF-8 length a native counter must give as `utf8LengthLoop` does: 1-, 2-, 3- and 4-byte characters, lone surrogates (high, low, high last, high before high), empty. */
const BYTE_LENGTH_PROBES = ['', 'a', '\u00e9', '\u20ac', '\ud83d\ude00', '\ud800', '\udc00', 'x\ud800', '\ud800\ud800\udc00', 'a\u00e9\u20ac\ud83d\ude00\ud800x\udc00\u07ff\uffff\ud800'];

/** Node's `Buffer.byteLength` (by feature probe, builtin.ts) when it counts every probe as the loop does; else undefined. */
const nativeByteLength: ((s: string) => number) | undefined = (() => {
  try {
    const B = nodeBuiltin<{ Buffer: { byteLength(s: string): number } }>('node:buffer')?.Buffer;
    if (B === undefined || typeof B.byteLength !== 'function') return undefined;
    const f = (s: string): number => B.byteLength(s);
    for (const p of BYTE_LENGTH_PROBES) if (f(p) !== utf8LengthLoop(p)) return undefined;
    return f;
  } catch {
    return undefined;
  }
})();

/**
 * Number of bytes of `s` encoded as UTF-8 (lone surrogates count 3, as U+FFFD). A text of
 * `NATIVE_MIN` code units or more is measured by Node's `Buffer.byteLength` when the runtime has
 * it and it counts the probe texts as the loop below does (`nativeByteLength`); shorter texts and
 * other runtimes use the loop. Why: the loop costs ~1.7 ns a code unit in optimized code and
 * about 3.5× that once it has seen two-byte strings (V8 then compiles its `charCodeAt` for both
 * representations): bench:render's floor, which measures every node's content with it, took
 * 70 ms in one process and 150 ms in the next, depending on what had been measured before;
 * `Buffer.byteLength` takes 10–25 ns for texts of 16–256 code units, whatever came before.
 */
export function utf8Length(s: string): number {
  if (s.length >= NATIVE_MIN && nativeByteLength !== undefined) return nativeByteLength(s);
  return utf8LengthLoop(s);
}

/** `utf8Length` by its rule, one code unit at a time (any runtime). */
function utf8LengthLoop(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Token estimate of a byte count: `ceil(bytes / BYTES_PER_TOKEN)`, 0 for 0. An estimate only. */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN);
}

/**
 * The byte budget for `--max-tokens N`: `N · BYTES_PER_TOKEN`. Throws `E_USAGE` unless `N` is a
 * positive safe integer whose byte budget is at most 64 MiB.
 */
export function bytesForTokens(tokens: number): number {
  if (!Number.isSafeInteger(tokens) || tokens <= 0 || tokens * BYTES_PER_TOKEN > MAX_BUDGET_BYTES) {
    throw new CtxpkgError('E_USAGE', `--max-tokens must be an integer from 1 to ${MAX_BUDGET_BYTES / BYTES_PER_TOKEN}`);
  }
  return tokens * BYTES_PER_TOKEN;
}

/** Throws `E_USAGE` unless `bytes` is an integer from 1 to 64 MiB. Returns it. */
export function checkByteBudget(bytes: number, what = '--max-bytes'): number {
  if (!Number.isSafeInteger(bytes) || bytes <= 0 || bytes > MAX_BUDGET_BYTES) {
    throw new CtxpkgError('E_USAGE', `${what} must be an integer from 1 to ${MAX_BUDGET_BYTES}`, {
      details: { value: bytes },
    });
  }
  return bytes;
}

/**
 * Split `total` bytes across buckets by weight (seed 004 `split_budget`): each bucket gets
 * `floor(total · w / W)`, then the leftover bytes go one each to the buckets with the largest
 * fractional parts, ties resolved in insertion order. The shares always sum to exactly `total`.
 * Weights are non-negative integers; when they sum to 0 every bucket weighs 1.
 * Throws `E_USAGE` for a negative/non-integer total or weight, or no buckets.
 */
export function splitBudget<K extends string>(total: number, weights: ReadonlyArray<readonly [K, number]>): Map<K, number> {
  if (!Number.isSafeInteger(total) || total < 0) throw new CtxpkgError('E_USAGE', 'budget total must be a non-negative integer');
  if (weights.length === 0) throw new CtxpkgError('E_USAGE', 'budget split needs at least one bucket');
  for (const [k, w] of weights) {
    if (!Number.isSafeInteger(w) || w < 0) throw new CtxpkgError('E_USAGE', `weight of ${k} must be a non-negative integer`);
  }
  const ws = weights.reduce((s, [, w]) => s + w, 0) === 0 ? weights.map(([k]) => [k, 1] as const) : weights;
  const W = ws.reduce((s, [, w]) => s + w, 0);
  const rows = ws.map(([k, w], i) => ({ k, i, floor: Math.floor((total * w) / W), rem: (total * w) % W }));
  let left = total - rows.reduce((s, r) => s + r.floor, 0);
  const byRemainder = [...rows].sort((a, b) => b.rem - a.rem || a.i - b.i);
  for (const r of byRemainder) {
    if (left === 0) break;
    r.floor++;
    left--;
  }
  return new Map(rows.map((r) => [r.k, r.floor]));
}

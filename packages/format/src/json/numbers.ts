/**
 * Number formatting exactly as the reference's serde_json 1.0.151 (zmij 1.0.23) writes it
 * (FORMAT-FACTS §3.4; vectors `float_f64_table`, `float_f32_table`).
 *
 * f64: shortest round-trip digits (the same digits as JS); fixed notation when the decimal
 * exponent E = floor(log10|x|) is in −5…15, with `.0` on integral values; otherwise
 * `d[.ddd]e±X` (`1e+16`, `1e-6`, `5e-324`). Zero is `0.0`, negative zero `-0.0`.
 * f32: shortest digits that round-trip *as f32*; fixed notation for E in −6…12.
 * Non-finite values are refused by the writer (serde would write `null`, which no reader parses
 * back into a number).
 */
import { CtxpkgError } from '../errors.js';

/** Shortest round-trip digits and decimal exponent of a positive finite double. */
function digitsOf(x: number): { digits: string; exp: number } {
  const s = x.toExponential(); // shortest digits, e.g. "1.5e+300", "3.0000000000000004e-1"
  const e = s.indexOf('e');
  return { digits: s.slice(0, e).replace('.', ''), exp: Number(s.slice(e + 1)) };
}

function layout(negative: boolean, digits: string, exp: number, minFixed: number, maxFixed: number): string {
  const sign = negative ? '-' : '';
  if (exp >= minFixed && exp <= maxFixed) {
    if (exp >= 0) {
      const intLen = exp + 1;
      if (digits.length <= intLen) return sign + digits + '0'.repeat(intLen - digits.length) + '.0';
      return sign + digits.slice(0, intLen) + '.' + digits.slice(intLen);
    }
    return sign + '0.' + '0'.repeat(-exp - 1) + digits;
  }
  const mant = digits.length === 1 ? digits : digits[0] + '.' + digits.slice(1);
  return sign + mant + 'e' + (exp < 0 ? '-' : '+') + Math.abs(exp);
}

function assertFinite(x: number, what: string): void {
  if (typeof x !== 'number' || !Number.isFinite(x)) {
    throw new CtxpkgError('E_CONTENT', `${what} must be a finite number, got ${String(x)}`);
  }
}

/**
 * serde_json's text for an f64 (see module comment); with `round15`, the value is first rounded
 * to 15 significant digits (`roundF64To15`, used for content). Throws `E_CONTENT` for NaN/±Infinity.
 * Examples: 1 → `1.0`, 1e16 → `1e+16`, 1e-6 → `1e-6`, 0.00001 → `0.00001`.
 */
export function formatF64(x: number, round15 = false): string {
  assertFinite(x, 'an f64 value');
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const memo = round15 ? F64_ROUNDED : F64_PLAIN;
  let s = memo.get(x);
  if (s === undefined) {
    let d = digitsOf(Math.abs(x));
    if (round15 && d.digits.length > 15) d = digitsOf(Math.abs(Number(x.toPrecision(15))));
    s = layout(x < 0, d.digits, d.exp, -5, 15);
    remember(memo, x, s);
  }
  return s;
}

/**
 * Memo tables of formatted numbers (pure functions of the value; zero is never stored, since a
 * Map does not tell 0 from -0). Graphs repeat a few values — activations, weights, confidences —
 * thousands of times, and formatting one costs several string conversions. Bounded: cleared
 * when full.
 */
const F64_PLAIN = new Map<number, string>();
const F64_ROUNDED = new Map<number, string>();
const F32_MEMO = new Map<number, string>();
const MEMO_MAX = 1 << 14;

function remember(memo: Map<number, string>, x: number, s: string): void {
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(x, s);
}

/** Shortest decimal digits (and exponent) that parse back to exactly the f32 value `a` > 0. */
function f32Digits(a: number): { digits: string; exp: number } {
  for (let p = 1; p <= 9; p++) {
    const base = Number(a.toPrecision(p));
    // The correctly rounded p-digit decimal can fall just outside an asymmetric rounding
    // interval (at powers of two) while a neighbour in the last digit still round-trips.
    const unit = Number(`1e${digitsOf(base).exp - (p - 1)}`);
    let best: number | undefined;
    for (const c of [base, Number((base - unit).toPrecision(p)), Number((base + unit).toPrecision(p))]) {
      if (c <= 0 || Math.fround(c) !== a) continue;
      if (best === undefined || Math.abs(c - a) < Math.abs(best - a)) best = c;
    }
    if (best !== undefined) return digitsOf(best);
  }
  return digitsOf(a);
}

/**
 * serde_json's text for an f32 (`confidence` fields): the value is first rounded to f32
 * (`Math.fround`), then written with the shortest digits that round-trip as f32.
 * Examples: 0.9 → `0.9`, 1e-6 → `0.000001`, 1e-7 → `1e-7`, 1e13 → `1e+13`.
 * Throws `E_CONTENT` for non-finite values or values that overflow f32.
 */
export function formatF32(x: number): string {
  assertFinite(x, 'an f32 value');
  const f = Math.fround(x);
  if (!Number.isFinite(f)) throw new CtxpkgError('E_CONTENT', `value ${x} overflows f32`);
  if (f === 0) return Object.is(f, -0) ? '-0.0' : '0.0';
  let s = F32_MEMO.get(f);
  if (s === undefined) {
    const { digits, exp } = f32Digits(Math.abs(f));
    s = layout(f < 0, digits, exp, -6, 12);
    remember(F32_MEMO, f, s);
  }
  return s;
}

/**
 * Round an f64 to 15 significant decimal digits. The writer does this for every f64 in
 * `content`: serde_json's default float parser is exact only up to 15 digits, so longer values
 * change by one ULP when the reference re-serializes its store copy (FORMAT-FACTS §3.4).
 * Idempotent: `roundF64To15(roundF64To15(x)) === roundF64To15(x)`.
 */
export function roundF64To15(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  let r = ROUNDED.get(x);
  if (r === undefined) {
    r = Number(x.toPrecision(15));
    if (ROUNDED.size >= MEMO_MAX) ROUNDED.clear();
    ROUNDED.set(x, r);
  }
  return r;
}

/** Memo of `roundF64To15` (graphs repeat a few activation values thousands of times). */
const ROUNDED = new Map<number, number>();

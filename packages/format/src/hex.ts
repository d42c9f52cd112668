/**
 * Strict hexadecimal helpers. Never use `Buffer.from(hex, 'hex')` on untrusted input: it stops
 * silently at the first bad character and drops an odd trailing nibble (ADVERSARIAL HB-11).
 */
import { CtxpkgError, type ErrorCode } from './errors.js';

const LOWER_HEX = /^[0-9a-f]*$/;
const ANY_HEX = /^[0-9a-fA-F]*$/;

/** True when `s` is exactly `length` lowercase hex characters (any length when omitted). */
export function isLowerHex(s: unknown, length?: number): s is string {
  return typeof s === 'string' && (length === undefined || s.length === length) && LOWER_HEX.test(s);
}

/** True when `s` is exactly `length` hex characters in either case. */
export function isHex(s: unknown, length?: number): s is string {
  return typeof s === 'string' && (length === undefined || s.length === length) && ANY_HEX.test(s);
}

/** Lowercase hex of `bytes`. */
export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += (bytes[i]! < 16 ? '0' : '') + bytes[i]!.toString(16);
  return out;
}

/**
 * Decode hex to bytes, refusing anything but an even number of hex digits (either case) and,
 * when given, a different length than `byteLength`. Throws `code` (default `E_USAGE`).
 */
export function hexToBytes(hex: string, byteLength?: number, code: ErrorCode = 'E_USAGE', what = 'hex value'): Uint8Array {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || !ANY_HEX.test(hex)) {
    throw new CtxpkgError(code, `${what} is not an even-length hex string`);
  }
  if (byteLength !== undefined && hex.length !== byteLength * 2) {
    throw new CtxpkgError(code, `${what} must be ${byteLength * 2} hex characters, got ${hex.length}`);
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

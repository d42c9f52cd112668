/**
 * RFC 3339 timestamps as the reference reads and writes them (chrono 0.4 `DateTime<Utc>`,
 * `SecondsFormat::AutoSi`, `Z`; FORMAT-FACTS §3.4 "Timestamps"; vector `chrono_table`).
 *
 * Accepted on read: `YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)` (`T`/`t`, `Z`/`z`), a real
 * calendar date, seconds 00–59. Written: the UTC instant as `YYYY-MM-DDTHH:MM:SS` followed by
 * `.fff`, `.ffffff` or `.fffffffff` only when the nanoseconds are non-zero (shortest exact width),
 * then `Z`. So `…05.000Z` → `…05Z`, `…05.100000Z` → `…05.100Z`, `04:04:05+01:00` → `03:04:05Z`.
 */
import { CtxpkgError } from '../errors.js';


/** A parsed timestamp: UTC seconds since the epoch plus nanoseconds. */
export interface ParsedTimestamp {
  /** Whole seconds since 1970-01-01T00:00:00Z (UTC). */
  epochSeconds: number;
  /** 0 … 999 999 999. */
  nanos: number;
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

function daysInMonth(y: number, mo: number): number {
  if (mo === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to y-mo-d (proleptic Gregorian; Howard Hinnant's days_from_civil). */
function daysFromCivil(y: number, mo: number, d: number): number {
  const yy = mo <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * Parse an RFC 3339 timestamp (rules in the module comment). Returns `undefined` when invalid;
 * see `normalizeTimestamp` for the throwing form.
 */
function digitAt(text: string, i: number): number {
  const c = text.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : NaN;
}

export function parseTimestamp(text: string): ParsedTimestamp | undefined {
  // Hand-rolled (no regex, no allocation): this runs for every timestamp of a large package.
  const n = text.length;
  if (n < 20) return undefined;
  const y = digitAt(text, 0) * 1000 + digitAt(text, 1) * 100 + digitAt(text, 2) * 10 + digitAt(text, 3);
  const mo = digitAt(text, 5) * 10 + digitAt(text, 6);
  const day = digitAt(text, 8) * 10 + digitAt(text, 9);
  const h = digitAt(text, 11) * 10 + digitAt(text, 12);
  const mi = digitAt(text, 14) * 10 + digitAt(text, 15);
  const s = digitAt(text, 17) * 10 + digitAt(text, 18);
  const t = text.charCodeAt(10);
  if (
    Number.isNaN(y + mo + day + h + mi + s) || text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d ||
    (t !== 0x54 && t !== 0x74) || text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a
  ) return undefined;
  if (mo < 1 || mo > 12 || day < 1 || day > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return undefined;
  let i = 19;
  let nanos = 0;
  if (text.charCodeAt(i) === 0x2e) {
    let digits = 0;
    i++;
    while (i < n && !Number.isNaN(digitAt(text, i))) {
      if (++digits > 9) return undefined;
      nanos = nanos * 10 + digitAt(text, i);
      i++;
    }
    if (digits === 0) return undefined;
    for (let k = digits; k < 9; k++) nanos *= 10;
  }
  let offsetMin = 0;
  const z = text.charCodeAt(i);
  if (z === 0x5a || z === 0x7a) {
    if (i + 1 !== n) return undefined;
  } else if (z === 0x2b || z === 0x2d) {
    if (i + 6 !== n || text.charCodeAt(i + 3) !== 0x3a) return undefined;
    const oh = digitAt(text, i + 1) * 10 + digitAt(text, i + 2);
    const om = digitAt(text, i + 4) * 10 + digitAt(text, i + 5);
    if (Number.isNaN(oh + om) || oh > 23 || om > 59) return undefined;
    offsetMin = (z === 0x2d ? -1 : 1) * (oh * 60 + om);
  } else return undefined;
  const epochSeconds = daysFromCivil(y, mo, day) * 86400 + h * 3600 + mi * 60 + s - offsetMin * 60;
  return { epochSeconds, nanos };
}

/** Write a parsed timestamp in the reference's spelling; `undefined` if outside years 0–9999. */
export function formatTimestamp(t: ParsedTimestamp): string | undefined {
  const date = new Date(t.epochSeconds * 1000);
  const y = date.getUTCFullYear();
  if (!(y >= 0 && y <= 9999)) return undefined;
  return (
    `${pad(y, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}` +
    `T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}${fractionText(t.nanos)}Z`
  );
}

/** The fraction as the reference writes it: none, or `.fff`/`.ffffff`/`.fffffffff` (shortest exact). */
function fractionText(nanos: number): string {
  if (nanos === 0) return '';
  if (nanos % 1_000_000 === 0) return '.' + pad(nanos / 1_000_000, 3);
  if (nanos % 1_000 === 0) return '.' + pad(nanos / 1_000, 6);
  return '.' + pad(nanos, 9);
}

/** True when `text` is a timestamp the reference can parse (see module comment). */
export function isValidTimestamp(text: string): boolean {
  const p = parseTimestamp(text);
  // 0000-01-01T00:00:00Z … 9999-12-31T23:59:59Z in UTC (an offset can push a date outside)
  return p !== undefined && p.epochSeconds >= -62167219200 && p.epochSeconds <= 253402300799;
}

/**
 * The reference's spelling of a timestamp given as RFC 3339 text or a `Date`.
 * Throws `E_CONTENT` (or `code`) naming `what` when the text is not a valid timestamp.
 */
export function normalizeTimestamp(value: string | Date, what = 'timestamp', code: 'E_CONTENT' | 'E_MANIFEST' = 'E_CONTENT'): string {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (!Number.isFinite(ms)) throw new CtxpkgError(code, `${what} is an invalid Date`);
    const out = formatTimestamp({ epochSeconds: Math.floor(ms / 1000), nanos: (((ms % 1000) + 1000) % 1000) * 1_000_000 });
    if (out === undefined) throw new CtxpkgError(code, `${what} is outside the years 0000–9999`);
    return out;
  }
  const p = typeof value === 'string' ? parseTimestamp(value) : undefined;
  // A UTC text with an upper-case `T` and `Z` keeps its date and time digits (years 0000–9999 by
  // construction): only the fraction is respelled, e.g. `…05.000Z` (Date#toISOString) → `…05Z`.
  // It is already in the reference spelling exactly when respelling leaves it as it is (the
  // fraction is absent or the shortest exact 3, 6 or 9 digits).
  const text = value as string;
  const utc = p !== undefined && text.charCodeAt(10) === 0x54 && text.charCodeAt(text.length - 1) === 0x5a;
  if (utc && text.length === 20 + (p.nanos === 0 ? 0 : p.nanos % 1_000_000 === 0 ? 4 : p.nanos % 1_000 === 0 ? 7 : 10)) {
    const frac = fractionText(p.nanos);
    if (frac === '' || text.endsWith(frac + 'Z')) return text;
  }
  const out = utc ? text.slice(0, 19) + fractionText(p.nanos) + 'Z' : p && formatTimestamp(p);
  if (!out) {
    throw new CtxpkgError(code, `${what} is not an RFC 3339 timestamp: ${JSON.stringify(value)}`, {
      hint: 'use e.g. 2026-01-02T03:04:05Z',
    });
  }
  return out;
}

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

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

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
export function parseTimestamp(text: string): ParsedTimestamp | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return undefined;
  let offsetMin = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const epochSeconds = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offsetMin * 60;
  const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  return { epochSeconds, nanos };
}

/** Write a parsed timestamp in the reference's spelling; `undefined` if outside years 0–9999. */
export function formatTimestamp(t: ParsedTimestamp): string | undefined {
  const date = new Date(t.epochSeconds * 1000);
  const y = date.getUTCFullYear();
  if (!(y >= 0 && y <= 9999)) return undefined;
  let frac = '';
  if (t.nanos !== 0) {
    if (t.nanos % 1_000_000 === 0) frac = '.' + pad(t.nanos / 1_000_000, 3);
    else if (t.nanos % 1_000 === 0) frac = '.' + pad(t.nanos / 1_000, 6);
    else frac = '.' + pad(t.nanos, 9);
  }
  return (
    `${pad(y, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}` +
    `T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}${frac}Z`
  );
}

/** True when `text` is a timestamp the reference can parse (see module comment). */
export function isValidTimestamp(text: string): boolean {
  const p = parseTimestamp(text);
  // 0000-01-01T00:00:00Z … 9999-12-31T23:59:59Z in UTC (an offset can push a date outside)
  return p !== undefined && p.epochSeconds >= -62167219200 && p.epochSeconds <= 253402300799;
}

/** Already in the reference spelling: UTC `Z`, no fraction or a 3/6/9-digit non-redundant one. */
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(?:\d{3}|\d{6}|\d{9}))?Z$/;

function isCanonicalSpelling(text: string): boolean {
  if (!CANONICAL.test(text)) return false;
  const frac = text.length > 20 ? text.slice(20, -1) : '';
  if (frac === '') return true;
  // the shortest exact width: no trailing group of three zeros, and not all zeros
  return !/^0+$/.test(frac) && !frac.endsWith('000');
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
  if (typeof value === 'string' && isCanonicalSpelling(value) && parseTimestamp(value)) return value;
  const p = typeof value === 'string' ? parseTimestamp(value) : undefined;
  const out = p && formatTimestamp(p);
  if (!out) {
    throw new CtxpkgError(code, `${what} is not an RFC 3339 timestamp: ${JSON.stringify(value)}`, {
      hint: 'use e.g. 2026-01-02T03:04:05Z',
    });
  }
  return out;
}

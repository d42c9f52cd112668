/**
 * Reading the CLI's own JSON files (ctxpkg.json, the user config, merged graphs): JSON text in,
 * a plain object out, with the keys that can pollute prototypes refused (ADVERSARIAL HB-08).
 */
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format/errors';
import { parseStrictJson } from '@ctxpkg/format/json';

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Parse `text` as a JSON object. Throws `E_INVALID_JSON` (syntax, not an object) or
 * `E_FORBIDDEN_KEY` (`__proto__`, `constructor`, `prototype` at any depth); `what` names the
 * file in the message.
 */
export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  let bad: string | undefined;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, (key, v: unknown) => {
      if (FORBIDDEN.has(key)) bad ??= key;
      return v;
    });
  } catch (err) {
    throw new CtxpkgError('E_INVALID_JSON', `${what} is not valid JSON: ${(err as Error).message}`, {
      hint: `fix the syntax of ${what}`,
    });
  }
  if (bad !== undefined) {
    throw new CtxpkgError('E_FORBIDDEN_KEY', `${what} contains the forbidden key "${bad}"`, {
      hint: 'remove the key; it could change object prototypes',
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CtxpkgError('E_INVALID_JSON', `${what} must contain a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * `parseJsonObject` for large machine-written files (merged.json: tens of MB), without the
 * reviver's per-value call: when the text contains none of the forbidden keys as a quoted string
 * (`"__proto__"`, `"constructor"`, `"prototype"`) and no `\u` escape (through which a key could
 * spell one), no key can be forbidden and the native `JSON.parse` alone gives the same value.
 * Otherwise `parseJsonObject` runs: the same values and the same error codes (`E_INVALID_JSON`,
 * `E_FORBIDDEN_KEY`), only the common case is faster. Four linear substring searches.
 */
export function parseLargeJsonObject(text: string, what: string): Record<string, unknown> {
  if (text.charCodeAt(0) === 0xfeff || text.includes('\\u')) return parseJsonObject(text, what);
  for (const k of FORBIDDEN) if (text.includes(`"${k}"`)) return parseJsonObject(text, what);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseJsonObject(text, what);
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  return parseJsonObject(text, what);
}

/**
 * Parse a small, hand-edited, security-relevant file (ctxpkg.json, the user config) with the
 * format's strict parser (spec/format.md §2): besides what `parseJsonObject` refuses, a key
 * repeated in one object is `E_DUPLICATE_KEY` — `JSON.parse` keeps the last one silently, so a
 * second `"registries"` member further down a reviewed ctxpkg.json could rebind a scope to another
 * registry unnoticed (ADVERSARIAL HB-28 class). Also `E_JSON_DEPTH`, `E_UNSAFE_INTEGER`, lone
 * surrogates (`E_INVALID_JSON`). A leading BOM is tolerated. `what` names the file in messages.
 */
export function parseStrictJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseStrictJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    if (!isCtxpkgError(err)) throw err;
    throw new CtxpkgError(err.code, `${what}: ${err.message}`, { hint: `fix ${what}`, details: err.details, cause: err });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CtxpkgError('E_INVALID_JSON', `${what} must contain a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Serialize a JSON value with 2-space indentation and a trailing LF (the CLI's file style). */
export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

/** True for a plain (non-array, non-null) object. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Test helpers shared by the two JSON fast paths (`fast.ts` over text, `fast-bytes.ts` over
 * UTF-8 bytes): the inputs both must refer to the strict parser, and strict-parse values with
 * raw numbers made plain for comparison with `JSON.parse`.
 */
import { MAX_JSON_DEPTH, RawNumber, type JsonValue } from '../parse.js';

/**
 * Hostile or unusual JSON texts every fast path must refuse (answer `undefined`), so that the
 * strict parser gives the precise error: duplicate and forbidden keys, lone surrogates, a BOM,
 * trailing text, an exponent out of range, an escaped key, nesting past the limit, truncation.
 */
export const REFUSED_BY_EVERY_FAST_PATH: readonly string[] = [
  '{"a":1,"a":2}',
  '{"x":{"k":1,"k":1}}',
  '{"__proto__":{}}',
  '{"a":{"constructor":1}}',
  '{"prototype":[]}',
  '"\\ud800"',
  '{"k":"a\\udc00"}',
  '\ufeff{}',
  '{} x',
  '{"a":1e400}',
  '{"k\\u0065y":1}',
  '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1),
  '{"a":',
  '',
];

/** `v` with every `RawNumber` replaced by its value (what `JSON.parse` gives). */
export function plain(v: JsonValue): unknown {
  if (v instanceof RawNumber) return v.value;
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/**
 * Serialize model objects by struct table exactly as serde_json does (FORMAT-FACTS §1.1, §3.4):
 * struct field order, `null` vs omitted per field, `1.0` for integral f64, shortest f32 digits,
 * reference timestamps and string escaping. Pretty mode is `to_string_pretty` (2-space indent,
 * `"key": value`, `[]`/`{}` when empty, no trailing newline); compact mode is `to_string`.
 * Input must already be validated (decoded in writing mode); a value of the wrong type throws.
 */
import { CtxpkgError } from '../errors.js';
import { formatF32, formatF64, roundF64To15 } from '../json/numbers.js';
import { formatJsonString } from '../json/strings.js';
import { normalizeTimestamp } from '../json/timestamp.js';
import type { EncodeContext, FieldType, StructTable } from './types.js';

const INDENTS: string[] = [''];
function nl(ctx: EncodeContext, level: number): string {
  if (!ctx.pretty) return '';
  while (INDENTS.length <= level) INDENTS.push(INDENTS[INDENTS.length - 1] + '  ');
  return '\n' + INDENTS[level];
}

function fail(path: string, message: string): never {
  throw new CtxpkgError('E_CONTENT', `${path}: ${message}`);
}

/** serde text of one value of `type` at nesting `level`. */
export function encodeValue(type: FieldType, v: unknown, ctx: EncodeContext, level: number, path: string): string {
  switch (type) {
    case 'string':
      if (typeof v !== 'string') fail(path, 'expected a string');
      return formatJsonString(v, path);
    case 'bool':
      if (typeof v !== 'boolean') fail(path, 'expected a boolean');
      return v ? 'true' : 'false';
    case 'u32':
    case 'u64':
    case 'usize':
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(path, `expected ${type}`);
      return String(v);
    case 'f64':
      if (typeof v !== 'number') fail(path, 'expected a number');
      return formatF64(ctx.roundF64 ? roundF64To15(v) : v);
    case 'f32':
      if (typeof v !== 'number') fail(path, 'expected a number');
      return formatF32(v);
    case 'datetime':
      if (typeof v !== 'string' && !(v instanceof Date)) fail(path, 'expected a timestamp');
      return '"' + normalizeTimestamp(v, path) + '"';
    default:
      if ('enum' in type) {
        if (typeof v !== 'string' || !type.enum.includes(v)) fail(path, `expected one of ${type.enum.join(', ')}`);
        return JSON.stringify(v);
      }
      if ('vec' in type) {
        if (!Array.isArray(v)) fail(path, 'expected an array');
        if (v.length === 0) return '[]';
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          out += (i === 0 ? '' : ',') + nl(ctx, level + 1) + encodeValue(type.vec, v[i], ctx, level + 1, `${path}[${i}]`);
        }
        return out + nl(ctx, level) + ']';
      }
      if ('struct' in type) return encodeStruct(type.struct, v, ctx, level, path);
      return type.custom.encode(v, ctx, level, path);
  }
}

/** serde text of a struct: fields in table order, applying the null/skip rules. */
export function encodeStruct(table: StructTable, v: unknown, ctx: EncodeContext, level: number, path: string): string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(path, `expected an object (${table.name})`);
  const obj = v as Record<string, unknown>;
  const sep = ctx.pretty ? ': ' : ':';
  let out = '{';
  let first = true;
  for (const f of table.fields) {
    let value = obj[f.key];
    const none = value === undefined || value === null;
    if (none) {
      if (f.presence === 'optional') continue;
      if (f.presence === 'required') fail(`${path}.${f.key}`, `missing field \`${f.key}\``);
      if (f.presence === 'default') value = f.default!();
    }
    if (f.skipWhen && f.skipWhen(value)) continue;
    const text = value === undefined || value === null ? 'null' : encodeValue(f.type, value, ctx, level + 1, `${path}.${f.key}`);
    out += (first ? '' : ',') + nl(ctx, level + 1) + '"' + f.key + '"' + sep + text;
    first = false;
  }
  return first ? '{}' : out + nl(ctx, level) + '}';
}

/**
 * Serialize model objects by struct table exactly as serde_json does (FORMAT-FACTS §1.1, §3.4):
 * struct field order, `null` vs omitted per field, `1.0` for integral f64, shortest f32 digits,
 * reference timestamps and string escaping. Pretty mode is `to_string_pretty` (2-space indent,
 * `"key": value`, `[]`/`{}` when empty, no trailing newline); compact mode is `to_string`.
 *
 * Output goes to a `ByteSink` (UTF-8 bytes, optionally a compact copy in the same pass).
 * Input must already be validated (decoded in writing mode, which also puts timestamps in the
 * reference's spelling: a timestamp string is written as given); a value of the wrong type throws.
 */
import { CtxpkgError } from '../errors.js';
import { formatF32, formatF64 } from '../json/numbers.js';
import { formatJsonString } from '../json/strings.js';
import { normalizeTimestamp } from '../json/timestamp.js';
import { ByteSink } from '../json/bytesink.js';
import { BOOL, CUSTOM, DATETIME, ENUM, F32, F64, INTEGER, kindOf, STRING, STRUCT, VEC, type CustomType, type EncodeContext, type FieldType, type StructTable } from './types.js';

/** The sink plus the encoding options. */
export interface EncodeTarget {
  sink: ByteSink;
  ctx: EncodeContext;
}

function at(container: string, key: string | undefined): string {
  return key === undefined ? container : `${container}.${key}`;
}

function fail(path: string, message: string): never {
  throw new CtxpkgError('E_CONTENT', `${path}: ${message}`);
}

/**
 * Write one value of `type` at nesting `level`. `container` names the container and `key` the field
 * (paths are only assembled when needed: for nested containers and for error messages).
 */
export function writeValue(type: FieldType, v: unknown, t: EncodeTarget, level: number, container: string, key?: string): void {
  writeKind(kindOf(type), type, v, t, level, container, key);
}

/** `writeValue` with the kind of `type` (`kindOf`) already known. */
function writeKind(kind: number, type: FieldType, v: unknown, t: EncodeTarget, level: number, container: string, key?: string): void {
  const sink = t.sink;
  switch (kind) {
    case STRING:
      if (typeof v !== 'string') fail(at(container, key), 'expected a string');
      if (!sink.wellFormedString(v)) formatJsonString(v, at(container, key)); // throws E_INVALID_JSON
      return;
    case BOOL:
      if (typeof v !== 'boolean') fail(at(container, key), 'expected a boolean');
      sink.ascii(v ? 'true' : 'false');
      return;
    case INTEGER:
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(at(container, key), `expected ${type as string}`);
      sink.ascii(String(v));
      return;
    case F64:
      if (typeof v !== 'number') fail(at(container, key), 'expected a number');
      sink.ascii(formatF64(v, t.ctx.roundF64));
      return;
    case F32:
      if (typeof v !== 'number') fail(at(container, key), 'expected a number');
      sink.ascii(formatF32(v));
      return;
    case DATETIME:
      // Decoding in writing mode has already put every timestamp in the reference's spelling.
      if (typeof v === 'string') return sink.string(v);
      if (!(v instanceof Date)) fail(at(container, key), 'expected a timestamp');
      sink.byte(0x22);
      sink.ascii(normalizeTimestamp(v, at(container, key)));
      sink.byte(0x22);
      return;
    case ENUM: {
      const e = (type as { enum: readonly string[] }).enum;
      if (typeof v !== 'string' || !e.includes(v)) fail(at(container, key), `expected one of ${e.join(', ')}`);
      sink.string(v);
      return;
    }
    case VEC: {
      if (!Array.isArray(v)) fail(at(container, key), 'expected an array');
      if (v.length === 0) return sink.ascii('[]');
      const inner = at(container, key);
      const sep = indent(level + 1);
      sink.token('[' + sep, '[');
      const next = ',' + sep;
      const elem = (type as { vec: FieldType }).vec;
      const ek = kindOf(elem);
      if (ek === STRUCT) {
        // one layout lookup for the whole list
        const table = (elem as { struct: StructTable }).struct;
        const lay = layout(table, level + 1);
        for (let i = 0; i < v.length; i++) {
          if (i > 0) sink.token(next, ',');
          writeStructWith(table, lay, v[i], t, level + 1, inner);
        }
      } else {
        for (let i = 0; i < v.length; i++) {
          if (i > 0) sink.token(next, ',');
          writeKind(ek, elem, v[i], t, level + 1, inner);
        }
      }
      sink.token(indent(level) + ']', ']');
      return;
    }
    case STRUCT:
      return writeStruct((type as { struct: StructTable }).struct, v, t, level, at(container, key));
    default:
      (type as { custom: CustomType }).custom.encode(v, t, level, at(container, key));
  }
}

/** Write a struct: fields in table order, applying the null/skip rules. */
export function writeStruct(table: StructTable, v: unknown, t: EncodeTarget, level: number, path: string): void {
  writeStructWith(table, layout(table, level), v, t, level, path);
}

/** `writeStruct` with `layout(table, level)` already looked up. */
function writeStructWith(table: StructTable, lay: Layout, v: unknown, t: EncodeTarget, level: number, path: string): void {
  const sink = t.sink;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(path, `expected an object (${table.name})`);
  const obj = v as Record<string, unknown>;
  const fields = table.fields;
  let first = true;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    let value = obj[f.key];
    if (value === undefined || value === null) {
      if (f.presence === 'optional') continue;
      if (f.presence === 'required') fail(`${path}.${f.key}`, `missing field \`${f.key}\``);
      if (f.presence === 'default') value = f.default!();
    }
    if (f.skipWhen && f.skipWhen(value)) continue;
    if (first) sink.tokenBytes(lay.prettyFirst[i]!, lay.compactFirst[i]!);
    else sink.tokenBytes(lay.prettyNext[i]!, lay.compactNext[i]!);
    first = false;
    if (value === undefined || value === null) sink.ascii('null');
    else writeKind(lay.kinds[i]!, f.type, value, t, level + 1, path, f.key);
  }
  if (first) return sink.ascii('{}');
  sink.tokenBytes(lay.prettyClose, lay.compactClose);
}

/**
 * The structure around each field of `table` at one nesting level, in both spellings: before
 * the first written field (`{`, newline, indentation, `"key": `), before a later one (`,` …),
 * and the pretty closing brace. Built once per table and level.
 */
interface Layout {
  prettyFirst: Uint8Array[];
  prettyNext: Uint8Array[];
  compactFirst: Uint8Array[];
  compactNext: Uint8Array[];
  prettyClose: Uint8Array;
  compactClose: Uint8Array;
  /** `kindOf` each field's type. */
  kinds: number[];
}

const LAYOUTS = new WeakMap<StructTable, Layout[]>();

function layout(table: StructTable, level: number): Layout {
  let byLevel = LAYOUTS.get(table);
  if (!byLevel) LAYOUTS.set(table, (byLevel = []));
  let lay = byLevel[level];
  if (!lay) {
    const sep = indent(level + 1);
    const keys = table.fields.map((f) => JSON.stringify(f.key));
    lay = byLevel[level] = {
      prettyFirst: keys.map((k) => ascii(`{${sep}${k}: `)),
      prettyNext: keys.map((k) => ascii(`,${sep}${k}: `)),
      compactFirst: keys.map((k) => ascii(`{${k}:`)),
      compactNext: keys.map((k) => ascii(`,${k}:`)),
      prettyClose: ascii(indent(level) + '}'),
      compactClose: ascii('}'),
      kinds: table.fields.map((f) => kindOf(f.type)),
    };
  }
  return lay;
}

/** The bytes of an ASCII string (tokens are copied from bytes: no string reads while writing). */
function ascii(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

const INDENTS: string[] = [];

/** A newline and `level` two-space indents (serde `to_string_pretty`). */
function indent(level: number): string {
  return (INDENTS[level] ??= '\n' + '  '.repeat(level));
}

/** serde text of one value (see `JsonSink` for the modes). */
export function encodeValue(type: FieldType, v: unknown, ctx: EncodeContext, level: number, path: string): string {
  const sink = new ByteSink(ctx.pretty);
  writeValue(type, v, { sink, ctx }, level, path);
  return DECODER.decode(sink.bytes());
}

/** serde text of a struct at nesting `level`. */
export function encodeStruct(table: StructTable, v: unknown, ctx: EncodeContext, level: number, path: string): string {
  const sink = new ByteSink(ctx.pretty);
  writeStruct(table, v, { sink, ctx }, level, path);
  return DECODER.decode(sink.bytes());
}

const DECODER = new TextDecoder();

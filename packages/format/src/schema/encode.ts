/**
 * Serialize model objects by struct table exactly as serde_json does (FORMAT-FACTS §1.1, §3.4):
 * struct field order, `null` vs omitted per field, `1.0` for integral f64, shortest f32 digits,
 * reference timestamps and string escaping. Pretty mode is `to_string_pretty` (2-space indent,
 * `"key": value`, `[]`/`{}` when empty, no trailing newline); compact mode is `to_string`.
 *
 * Output goes to a `JsonSink` as a list of parts joined once at the end (string `+=` on millions
 * of pieces builds deep ropes that cost more in garbage collection than the serialization). The
 * sink can produce the pretty and the compact text in one pass: whitespace parts go only to the
 * pretty list, so the compact text never has to be recovered by scanning.
 * Input must already be validated (decoded in writing mode); a value of the wrong type throws.
 */
import { CtxpkgError } from '../errors.js';
import { formatF32, formatF64 } from '../json/numbers.js';
import { formatJsonString } from '../json/strings.js';
import { normalizeTimestamp } from '../json/timestamp.js';
import type { EncodeContext, FieldType, StructTable } from './types.js';

/** Collects output parts: `pretty` always, `compact` when requested. */
export class JsonSink {
  readonly pretty: string[] = [];
  readonly compact: string[] | undefined;
  private readonly indents: string[] = [''];

  constructor(
    readonly ctx: EncodeContext,
    withCompact = false,
  ) {
    if (withCompact) this.compact = [];
  }

  /** A significant token (goes to both outputs). */
  tok(s: string): void {
    this.pretty.push(s);
    this.compact?.push(s);
  }

  /** Newline + indentation for `level` (pretty output only). */
  nl(level: number): void {
    if (!this.ctx.pretty) return;
    while (this.indents.length <= level) this.indents.push(this.indents[this.indents.length - 1] + '  ');
    this.pretty.push('\n' + this.indents[level]);
  }

  /** The key separator: `": "` pretty, `":"` compact. */
  colon(): void {
    this.pretty.push(this.ctx.pretty ? ': ' : ':');
    this.compact?.push(':');
  }

  text(): string {
    return this.pretty.join('');
  }

  compactText(): string {
    return (this.compact ?? this.pretty).join('');
  }
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
export function writeValue(type: FieldType, v: unknown, sink: JsonSink, level: number, container: string, key?: string): void {
  switch (type) {
    case 'string':
      if (typeof v !== 'string') fail(at(container, key), 'expected a string');
      sink.tok(formatJsonString(v, key ?? container));
      return;
    case 'bool':
      if (typeof v !== 'boolean') fail(at(container, key), 'expected a boolean');
      sink.tok(v ? 'true' : 'false');
      return;
    case 'u32':
    case 'u64':
    case 'usize':
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(at(container, key), `expected ${type}`);
      sink.tok(String(v));
      return;
    case 'f64':
      if (typeof v !== 'number') fail(at(container, key), 'expected a number');
      sink.tok(formatF64(v, sink.ctx.roundF64));
      return;
    case 'f32':
      if (typeof v !== 'number') fail(at(container, key), 'expected a number');
      sink.tok(formatF32(v));
      return;
    case 'datetime':
      if (typeof v !== 'string' && !(v instanceof Date)) fail(at(container, key), 'expected a timestamp');
      sink.tok('"' + normalizeTimestamp(v, key ?? container) + '"');
      return;
    default:
      if ('enum' in type) {
        if (typeof v !== 'string' || !type.enum.includes(v)) fail(at(container, key), `expected one of ${type.enum.join(', ')}`);
        sink.tok(JSON.stringify(v));
        return;
      }
      if ('vec' in type) {
        if (!Array.isArray(v)) fail(at(container, key), 'expected an array');
        if (v.length === 0) return sink.tok('[]');
        const inner = at(container, key);
        sink.tok('[');
        for (let i = 0; i < v.length; i++) {
          if (i > 0) sink.tok(',');
          sink.nl(level + 1);
          writeValue(type.vec, v[i], sink, level + 1, inner);
        }
        sink.nl(level);
        sink.tok(']');
        return;
      }
      if ('struct' in type) return writeStruct(type.struct, v, sink, level, at(container, key));
      type.custom.encode(v, sink, level, at(container, key));
  }
}

/** Write a struct: fields in table order, applying the null/skip rules. */
export function writeStruct(table: StructTable, v: unknown, sink: JsonSink, level: number, path: string): void {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(path, `expected an object (${table.name})`);
  const obj = v as Record<string, unknown>;
  let first = true;
  for (const f of table.fields) {
    let value = obj[f.key];
    if (value === undefined || value === null) {
      if (f.presence === 'optional') continue;
      if (f.presence === 'required') fail(`${path}.${f.key}`, `missing field \`${f.key}\``);
      if (f.presence === 'default') value = f.default!();
    }
    if (f.skipWhen && f.skipWhen(value)) continue;
    sink.tok(first ? '{' : ',');
    first = false;
    sink.nl(level + 1);
    sink.tok('"' + f.key + '"');
    sink.colon();
    if (value === undefined || value === null) sink.tok('null');
    else writeValue(f.type, value, sink, level + 1, path, f.key);
  }
  if (first) return sink.tok('{}');
  sink.nl(level);
  sink.tok('}');
}

/** serde text of one value (see `JsonSink` for the modes). */
export function encodeValue(type: FieldType, v: unknown, ctx: EncodeContext, level: number, path: string): string {
  const sink = new JsonSink(ctx);
  writeValue(type, v, sink, level, path);
  return sink.text();
}

/** serde text of a struct at nesting `level`. */
export function encodeStruct(table: StructTable, v: unknown, ctx: EncodeContext, level: number, path: string): string {
  const sink = new JsonSink(ctx);
  writeStruct(table, v, sink, level, path);
  return sink.text();
}

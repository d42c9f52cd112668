/**
 * Decode parsed JSON (from `parseStrictJson` with `rawNumbers`, or plain JS values in writing
 * mode) into model objects by struct table, collecting every problem as an `Issue`.
 * Reference behaviour mirrored (FORMAT-FACTS §2 "Parse outcomes", §3.4): integers must be
 * integer literals in range (`1.0` in a u32 is an error), `null` is an error for Vec/u32/bool
 * fields, Option fields accept `null`, missing required fields are errors.
 */
import type { ErrorCode } from '../errors.js';
import { RawNumber } from '../json/parse.js';
import { hasLoneSurrogate } from '../json/strings.js';
import { isValidTimestamp, normalizeTimestamp } from '../json/timestamp.js';
import { BOOL, CUSTOM as CUSTOM_KIND, DATETIME, ENUM, F32, F64, fieldKinds, INTEGER, kindOf, STRING, STRUCT, VEC, type CustomType, type DecodeContext, type FieldSpec, type FieldType, type StructTable } from './types.js';

/** Marker returned for a value that could not be decoded (an issue was recorded). */
export const INVALID: unique symbol = Symbol('invalid');

const U32_MAX = 4294967295;

/** Record a problem (up to `ctx.maxIssues`). */
export function report(ctx: DecodeContext, path: string, message: string, code: ErrorCode = ctx.code): void {
  if (ctx.issues.length < ctx.maxIssues) ctx.issues.push({ path, code, message });
  else if (ctx.issues.length === ctx.maxIssues) ctx.issues.push({ path: '', code, message: 'too many problems; the rest are not listed' });
}

/** `parent` joined with `key` when there is one. */
function at(parent: string, key: string | number | undefined): string {
  return key === undefined ? parent : sub(parent, key);
}

/** Join a path and a key/index. */
export function sub(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof RawNumber) return `the number ${v.text}`;
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'a string';
  return `${typeof v} ${String(v)}`;
}

function decodeInteger(v: unknown, ctx: DecodeContext, parent: string, key: string | number | undefined, max: number, rust: string): number | typeof INVALID {
  let n: number;
  if (v instanceof RawNumber) {
    if (!v.isIntegerLiteral || v.text.startsWith('-')) {
      report(ctx, at(parent, key), `expected ${rust} (a non-negative integer literal), got ${v.text}`);
      return INVALID;
    }
    n = v.value;
  } else if (typeof v === 'number' && ctx.plainNumbers) {
    if (!Number.isInteger(v) || v < 0 || Object.is(v, -0)) {
      report(ctx, at(parent, key), `expected ${rust} (a non-negative integer), got ${v}`);
      return INVALID;
    }
    n = v;
  } else {
    report(ctx, at(parent, key), `expected ${rust}, got ${describe(v)}`);
    return INVALID;
  }
  if (max > Number.MAX_SAFE_INTEGER && n > Number.MAX_SAFE_INTEGER) {
    report(ctx, at(parent, key), `integer ${v instanceof RawNumber ? v.text : n} is above 2^53-1, which ctxpkg cannot represent exactly`, 'E_UNSAFE_INTEGER');
    return INVALID;
  }
  if (n > max) {
    report(ctx, at(parent, key), `integer ${n} does not fit in ${rust}`);
    return INVALID;
  }
  return n;
}

function decodeFloat(v: unknown, ctx: DecodeContext, parent: string, key: string | number | undefined, f32: boolean): number | typeof INVALID {
  const n = v instanceof RawNumber ? v.value : typeof v === 'number' && ctx.plainNumbers ? v : undefined;
  if (n === undefined) {
    report(ctx, at(parent, key), `expected a number, got ${describe(v)}`);
    return INVALID;
  }
  if (!Number.isFinite(n) || (f32 && !Number.isFinite(Math.fround(n)))) {
    report(ctx, at(parent, key), `number ${String(n)} is out of range for ${f32 ? 'f32' : 'f64'}`);
    return INVALID;
  }
  return n;
}

/**
 * Decode one value of `type` at `parent` + `key` (the path string is only assembled for nested
 * containers and problems). Returns `INVALID` after recording an issue.
 */
export function decodeValue(type: FieldType, v: unknown, ctx: DecodeContext, parent: string, key?: string | number): unknown {
  return decodeKind(kindOf(type), type, v, ctx, parent, key);
}

/** `decodeValue` with the kind of `type` (`kindOf`) already known. */
function decodeKind(kind: number, type: FieldType, v: unknown, ctx: DecodeContext, parent: string, key?: string | number): unknown {
  switch (kind) {
    case STRING:
      if (typeof v !== 'string') break;
      if (ctx.normalize && hasLoneSurrogate(v)) {
        report(ctx, at(parent, key), 'string contains a lone UTF-16 surrogate', 'E_INVALID_JSON');
        return INVALID;
      }
      return v;
    case BOOL:
      if (typeof v !== 'boolean') break;
      return v;
    case INTEGER:
      return decodeInteger(v, ctx, parent, key, type === 'u32' ? U32_MAX : 2 ** 64 - 1, type as string);
    case F64:
      return decodeFloat(v, ctx, parent, key, false);
    case F32:
      return decodeFloat(v, ctx, parent, key, true);
    case DATETIME:
      if (ctx.normalize && (typeof v === 'string' || v instanceof Date)) {
        try {
          return normalizeTimestamp(v, at(parent, key), ctx.code === 'E_MANIFEST' ? 'E_MANIFEST' : 'E_CONTENT');
        } catch (e) {
          report(ctx, at(parent, key), (e as Error).message);
          return INVALID;
        }
      }
      if (typeof v !== 'string') break;
      if (!isValidTimestamp(v)) {
        report(ctx, at(parent, key), `not an RFC 3339 timestamp: ${JSON.stringify(v)}`);
        return INVALID;
      }
      return v;
    default:
      if (kind === ENUM) {
        if (typeof v !== 'string') break;
        const t = type as Extract<FieldType, { enum: readonly string[] }>;
        if (!t.enum.includes(v)) {
          const msg = t.unknownMessage ? t.unknownMessage(v) : `unknown value ${JSON.stringify(v)}, expected one of ${t.enum.join(', ')}`;
          report(ctx, at(parent, key), msg, t.unknownCode ?? ctx.code);
          return INVALID;
        }
        return v;
      }
      if (kind === VEC) {
        if (!Array.isArray(v)) break;
        const out: unknown[] = ctx.inPlace ? v : new Array(v.length);
        const here = at(parent, key);
        const elem = (type as { vec: FieldType }).vec;
        const ek = kindOf(elem);
        let bad = false;
        for (let i = 0; i < v.length; i++) {
          const x = v[i];
          const d = decodeKind(ek, elem, x, ctx, here, i);
          if (d === INVALID) bad = true;
          // in place, an element decoded as itself (a struct decoded in place) needs no store
          if (out !== v || d !== x) out[i] = d;
        }
        return bad ? INVALID : out;
      }
      if (kind === STRUCT) {
        const table = (type as { struct: StructTable }).struct;
        // the planned path first: it needs no path string (one per node of a large graph)
        if (isObjectValue(v)) return planned(table, v, ctx) ?? decodeFields(table, v, ctx, at(parent, key));
        return decodeStruct(table, v, ctx, at(parent, key));
      }
      return (type as { custom: CustomType }).custom.decode(v, ctx, at(parent, key));
  }
  report(ctx, at(parent, key), `expected ${typeof type === 'string' ? type : 'enum' in type ? 'a string' : 'vec' in type ? 'an array' : 'a value'}, got ${describe(v)}`);
  return INVALID;
}

/**
 * Decode an object by `table`. The result has exactly the table's fields (in table order, except
 * in place and for tables that refuse unknown fields, which keep the source's key order with
 * added defaults last): `nullable` None → `null`; `optional` None → absent; `default` absent →
 * the default. The source is never modified unless `ctx.inPlace`; for a table that refuses
 * unknown fields, a source object that is already exactly its model is returned as is.
 */
export function decodeStruct(table: StructTable, v: unknown, ctx: DecodeContext, path: string): Record<string, unknown> | typeof INVALID {
  if (!isObjectValue(v)) {
    report(ctx, path, `expected an object (${table.name}), got ${describe(v)}`);
    return INVALID;
  }
  return planned(table, v, ctx) ?? decodeFields(table, v, ctx, path);
}

/** True for a JSON object value (not null, an array, a raw number or a `Date`). */
function isObjectValue(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof RawNumber) && !(v instanceof Date);
}

/** `decodeStruct` of an object value by the generic path (every field of `table` in turn). */
function decodeFields(table: StructTable, src: Record<string, unknown>, ctx: DecodeContext, path: string): Record<string, unknown> | typeof INVALID {
  // In place (reading a tree we own): defaults are added to the parsed object itself, which
  // saves a copy of every node of a large package. A table that refuses unknown fields (a valid
  // object has no other fields) is copied on write: the source object itself when decoding
  // changes nothing, else one fast shallow clone with the changes stored into it. Otherwise a
  // fresh object in table order.
  const cow = !ctx.inPlace && table.unknownFields === 'error' && Object.getPrototypeOf(src) === Object.prototype;
  let out: Record<string, unknown> = ctx.inPlace || cow ? src : {};
  let total = 0;
  if (table.unknownFields === 'error') for (const k in src) if (Object.prototype.hasOwnProperty.call(src, k)) total++;
  let known = 0;
  let bad = false;
  const fields = table.fields;
  const kinds = fieldKinds(table);
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const raw = src[f.key];
    const has = raw !== undefined && Object.prototype.hasOwnProperty.call(src, f.key);
    if (has) known++;
    if (!has || (raw === null && (f.presence === 'nullable' || f.presence === 'optional'))) {
      if (f.presence === 'required') {
        report(ctx, sub(path, f.key), `missing field \`${f.key}\` (${table.name})`);
        bad = true;
        continue;
      }
      // the source object already holds the model's value: absent, or null for `nullable`
      if (out === src && (f.presence === 'optional' ? !has : f.presence === 'nullable' && has)) continue;
      if (cow && out === src) out = copyOf(src, fields, i);
      if (f.presence === 'nullable') out[f.key] = null;
      else if (f.presence === 'default') out[f.key] = f.default!();
      else if (has && (ctx.inPlace || cow)) delete out[f.key]; // optional given as null: absent in the model
      continue;
    }
    const d = decodeKind(kinds[i]!, f.type, raw, ctx, path, f.key);
    if (d === INVALID) bad = true;
    else if (out === src ? d !== raw : out[f.key] !== d) {
      if (cow && out === src) out = copyOf(src, fields, i);
      out[f.key] = d;
    }
  }
  if (cow && total > known && !bad) {
    // a known key the source holds as `undefined`: absent in the model, like a fresh object's
    for (const f of fields) {
      if (src[f.key] === undefined && Object.prototype.hasOwnProperty.call(src, f.key)) {
        if (out === src) out = copyOf(src, fields, fields.length);
        if (out[f.key] === undefined) delete out[f.key];
      }
    }
  }
  if (table.unknownFields === 'error' && total > known) {
    for (const k of Object.keys(src)) {
      if (!fields.some((f) => f.key === k)) {
        report(ctx, sub(path, k), `unknown field \`${k}\` in ${table.name} (the reference would drop it and then fail its own integrity check)`);
        bad = true;
      }
    }
  }
  return bad ? INVALID : out;
}

/**
 * The plan of one key sequence of a scalar-only table (`decodePlanned`): the source's keys in
 * enumeration order, the field index of each, the fields absent from it, and those of them that
 * decoding fills in (`nullable` → null, `default` → its default), in table order.
 */
interface KeyPlan {
  keys: string[];
  fields: number[];
  absent: number[];
  fills: number[];
}

/** Per table: whether every field is a scalar kind, the kind and type of each field, key → field index, and the plans seen (the last used first). */
interface TablePlans {
  scalar: boolean;
  kinds: readonly number[];
  types: readonly FieldType[];
  index: Map<string, number>;
  plans: KeyPlan[];
}

/** Plans kept per table: a writer's objects of one table come in a few key sequences (an edge with or without `coactivations`). */
const MAX_PLANS = 8;

const PLANS = new WeakMap<StructTable, TablePlans>();

let plansOn = true;

/**
 * Turn planned decoding off (`false`) or on again: for tests that compare it with the generic
 * path. On by default; the output is the same either way.
 */
export function setPlannedDecoding(on: boolean): void {
  plansOn = on;
}

function tablePlans(table: StructTable): TablePlans {
  let t = PLANS.get(table);
  if (!t) {
    const kinds = fieldKinds(table);
    t = {
      scalar: kinds.every((k) => k !== VEC && k !== STRUCT && k !== CUSTOM_KIND),
      kinds,
      types: table.fields.map((f) => f.type),
      index: new Map(table.fields.map((f, i) => [f.key, i])),
      plans: [],
    };
    PLANS.set(table, t);
  }
  return t;
}

/** The plan of `src`'s own keys (in enumeration order), or undefined when the generic path must decode it (an unknown key of a table that refuses them, a missing required field, an inherited key). */
function buildPlan(table: StructTable, t: TablePlans, src: Record<string, unknown>): KeyPlan | undefined {
  const keys: string[] = [];
  const fields: number[] = [];
  const present = new Uint8Array(table.fields.length);
  for (const k in src) {
    if (!Object.prototype.hasOwnProperty.call(src, k)) return undefined;
    const fi = t.index.get(k);
    if (fi === undefined) {
      if (table.unknownFields === 'error') return undefined;
      continue;
    }
    keys.push(k);
    fields.push(fi);
    present[fi] = 1;
  }
  const absent: number[] = [];
  const fills: number[] = [];
  for (let i = 0; i < table.fields.length; i++) {
    if (present[i]) continue;
    absent.push(i);
    const p = table.fields[i]!.presence;
    if (p === 'required') return undefined;
    if (p === 'nullable' || p === 'default') fills.push(i);
  }
  return { keys, fields, absent, fills };
}

/**
 * `decodePlanned` where `ctx` allows it: reading in place through the fast parser (plain numbers,
 * no normalizing), or writing (normalizing, copy on write) a table that refuses unknown fields.
 */
function planned(table: StructTable, src: Record<string, unknown>, ctx: DecodeContext): Record<string, unknown> | undefined {
  if (!plansOn) return undefined;
  if (ctx.inPlace) return ctx.plainNumbers && !ctx.normalize ? decodePlanned(table, src, false) : undefined;
  return ctx.normalize && ctx.plainNumbers && table.unknownFields === 'error' ? decodePlanned(table, src, true) : undefined;
}

/**
 * Planned decoding of an object of a scalar-only table (e.g. a graph node or edge): the object's
 * own keys are compared with the key sequences last seen for `table` (objects of one writer share
 * a few), so only the fields present are checked, and the absent ones are filled in by the plan.
 * Reading (`cow` false, a tree from the fast parser: plain numbers, integer literals guaranteed):
 * the defaults are added to `src` itself. Writing (`cow` true, a caller's model): timestamps are
 * normalized, and `src` is returned as is when decoding changes nothing, else a copy with the
 * changes (the generic path's copy on write). Answers the decoded object — exactly what
 * `decodeStruct`'s generic path makes of `src` — or undefined, leaving `src` untouched, for
 * anything it does not settle (a null or undefined value, an unknown or non-enumerable key, a
 * value of the wrong type or out of range, a missing field): the generic path then decodes it and
 * reports the problems. Tables with vectors, structs or custom fields always take the generic path.
 */
function decodePlanned(table: StructTable, src: Record<string, unknown>, cow: boolean): Record<string, unknown> | undefined {
  const t = tablePlans(table);
  if (!t.scalar || Object.getPrototypeOf(src) !== Object.prototype) return undefined;
  const plans = t.plans;
  let plan: KeyPlan | undefined;
  for (let p = 0; p < plans.length; p++) {
    const r = checkPlan(plans[p]!, t, src, cow);
    if (r < 0) return undefined;
    if (r === 0) continue;
    plan = plans[p]!;
    // the plan last used first
    plans[p] = plans[0]!;
    plans[0] = plan;
    break;
  }
  if (plan === undefined) {
    plan = buildPlan(table, t, src);
    if (plan === undefined || checkPlan(plan, t, src, cow) !== 1) return undefined;
    plans.unshift(plan);
    if (plans.length > MAX_PLANS) plans.pop();
  }
  const fields = table.fields;
  let out = src;
  if (cow) {
    // a field the enumeration did not show may still be an own, non-enumerable property
    for (const i of plan.absent) if (Object.prototype.hasOwnProperty.call(src, fields[i]!.key)) return undefined;
    if (CHANGES.length === 0 && plan.fills.length === 0) return src;
    out = { ...src };
    for (let c = 0; c < CHANGES.length; c += 2) out[fields[CHANGES[c] as number]!.key] = CHANGES[c + 1];
  }
  for (const i of plan.fills) {
    const f = fields[i]!;
    out[f.key] = f.presence === 'nullable' ? null : f.default!();
  }
  return out;
}

/**
 * The values `checkPlan` decoded differently from the source (normalized timestamps), as pairs
 * of field index and value; cleared by each call (plans decode no nested objects, so one buffer
 * serves every call).
 */
const CHANGES: unknown[] = [];

/**
 * `src` against `plan` in one walk over its keys (a `for…in`, whose loads V8 serves from the
 * enumeration cache): 1 when it enumerates exactly the plan's keys and every value decodes
 * without a problem, 0 when its keys differ, -1 when a value needs the generic path. `normalize`
 * (writing): values that decode to something else are listed in `CHANGES`.
 */
function checkPlan(plan: KeyPlan, t: TablePlans, src: Record<string, unknown>, normalize: boolean): number {
  const { keys, fields } = plan;
  const { kinds, types } = t;
  CHANGES.length = 0;
  let j = 0;
  for (const k in src) {
    if (keys[j] !== k) return 0;
    const i = fields[j++]!;
    const v = src[k];
    if (!normalize) {
      if (!scalarOk(kinds[i]!, types[i]!, v)) return -1;
      continue;
    }
    const kind = kinds[i]!;
    if (kind === DATETIME) {
      if (typeof v !== 'string' && !(v instanceof Date)) return -1;
      let d: string;
      try {
        d = normalizeTimestamp(v);
      } catch {
        return -1;
      }
      if (d !== v) CHANGES.push(i, d);
    } else if (kind === STRING) {
      if (typeof v !== 'string' || hasLoneSurrogate(v)) return -1;
    } else if (!scalarOk(kind, types[i]!, v)) return -1;
  }
  return j === keys.length ? 1 : 0;
}

/** True when the plain (reading, non-normalizing) decoding of the scalar `v` is `v` itself without a problem. */
function scalarOk(kind: number, type: FieldType, v: unknown): boolean {
  switch (kind) {
    case STRING:
      return typeof v === 'string';
    case BOOL:
      return typeof v === 'boolean';
    case INTEGER:
      return typeof v === 'number' && Number.isInteger(v) && v >= 0 && !Object.is(v, -0) && v <= (type === 'u32' ? U32_MAX : Number.MAX_SAFE_INTEGER);
    case F64:
      return typeof v === 'number' && Number.isFinite(v);
    case F32:
      return typeof v === 'number' && Number.isFinite(Math.fround(v));
    case DATETIME:
      return typeof v === 'string' && isValidTimestamp(v);
    case ENUM:
      return typeof v === 'string' && (type as Extract<FieldType, { enum: readonly string[] }>).enum.includes(v);
    default:
      return false;
  }
}

/**
 * A shallow copy of `src` for copy-on-write decoding, with the first `upTo` fields of `fields`
 * (already decoded, unchanged) carried over even when the source holds them as non-enumerable
 * properties, which a spread leaves out.
 */
function copyOf(src: Record<string, unknown>, fields: readonly FieldSpec[], upTo: number): Record<string, unknown> {
  const out: Record<string, unknown> = { ...src };
  for (let j = 0; j < upTo; j++) {
    const k = fields[j]!.key;
    if (!(k in out) && Object.prototype.hasOwnProperty.call(src, k) && src[k] !== undefined) out[k] = src[k];
  }
  return out;
}

/** A fresh decode context. */
export function newDecodeContext(code: ErrorCode, normalize: boolean, maxIssues = 100, plainNumbers = normalize, inPlace = false): DecodeContext {
  return { code, issues: [], maxIssues, normalize, plainNumbers, inPlace };
}

/** Every JSON key that holds an integer (u32/u64/usize) in any of `tables`, recursively. */
export function integerKeysOf(tables: StructTable[]): Set<string> {
  const out = new Set<string>();
  const seen = new Set<StructTable>();
  const visitType = (t: FieldType): void => {
    if (typeof t === 'string') return;
    if ('vec' in t) visitType(t.vec);
    else if ('struct' in t) visit(t.struct);
  };
  const visit = (t: StructTable): void => {
    if (seen.has(t)) return;
    seen.add(t);
    for (const f of t.fields) {
      if (f.type === 'u32' || f.type === 'u64' || f.type === 'usize') out.add(f.key);
      visitType(f.type);
    }
  };
  tables.forEach(visit);
  return out;
}

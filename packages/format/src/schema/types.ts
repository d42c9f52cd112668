/**
 * Struct tables: one table per reference struct, giving field order, type, default and skip rule
 * (FORMAT-FACTS §2 and §5.1). The same table drives reading (defaults, validation) and writing
 * (serde's exact field order and null-vs-omitted rules), so the two cannot drift apart.
 */
import type { ErrorCode, Issue } from '../errors.js';

/** Scalar field types, named after the Rust types they mirror. */
export type ScalarType = 'string' | 'bool' | 'u32' | 'u64' | 'usize' | 'f64' | 'f32' | 'datetime';

/**
 * Value kinds (`kindOf`), so the decoder and the writer dispatch on a small integer rather than
 * comparing type names.
 */
export const STRING = 0, BOOL = 1, INTEGER = 2, F64 = 3, F32 = 4, DATETIME = 5, ENUM = 6, VEC = 7, STRUCT = 8, CUSTOM = 9;

/** The kind of `type` (u32, u64 and usize are all `INTEGER`). */
export function kindOf(type: FieldType): number {
  if (typeof type === 'string') {
    switch (type) {
      case 'string': return STRING;
      case 'bool': return BOOL;
      case 'u32':
      case 'u64':
      case 'usize': return INTEGER;
      case 'f64': return F64;
      case 'f32': return F32;
      case 'datetime': return DATETIME;
    }
  }
  return 'enum' in type ? ENUM : 'vec' in type ? VEC : 'struct' in type ? STRUCT : CUSTOM;
}

const KINDS = new WeakMap<StructTable, number[]>();

/** `kindOf` each field of `table`, in field order (computed once per table). */
export function fieldKinds(table: StructTable): number[] {
  let k = KINDS.get(table);
  if (!k) KINDS.set(table, (k = table.fields.map((f) => kindOf(f.type))));
  return k;
}

/** A value type of a field. */
export type FieldType =
  | ScalarType
  | { enum: readonly string[]; unknownCode?: ErrorCode; unknownMessage?: (value: string) => string }
  | { vec: FieldType }
  | { struct: StructTable }
  | { custom: CustomType };

/**
 * How a field behaves when absent (Rust/serde attribute it mirrors):
 * - `required`: must be present and not null (plain field);
 * - `nullable`: `Option<T>`, absent or null = None, written as `null`;
 * - `optional`: `Option<T>` with `skip_serializing_if = "Option::is_none"`, absent or null = None,
 *   omitted on write;
 * - `default`: `#[serde(default)]` on a non-Option field: absent = default, `null` is an error,
 *   always written unless `skipWhen` says otherwise.
 */
export type Presence = 'required' | 'nullable' | 'optional' | 'default';

export interface FieldSpec {
  /** The JSON key (after serde renames, e.g. `type`). */
  key: string;
  type: FieldType;
  presence: Presence;
  /** Default for `presence: 'default'` (a fresh value each call). */
  default?: () => unknown;
  /** Skip on write when this returns true (serde `skip_serializing_if`), e.g. coactivations == 0. */
  skipWhen?: (value: unknown) => boolean;
}

export interface StructTable {
  /** Rust struct name, for messages. */
  name: string;
  fields: readonly FieldSpec[];
  /**
   * What to do with keys the table does not know: `ignore` (serde's default, used for the
   * manifest, which is not hashed) or `error` (content: the reference's store would drop them
   * and then fail its own integrity check, FORMAT-FACTS §0.6).
   */
  unknownFields: 'ignore' | 'error';
}

/** Hooks for fields whose JSON shape is not a plain table (e.g. dependencies map vs array). */
export interface CustomType {
  decode(value: unknown, ctx: DecodeContext, path: string): unknown;
  /** Write the value's serde text into `target.sink` at nesting `level`. */
  encode(value: unknown, target: import('./encode.js').EncodeTarget, level: number, path: string): void;
}

/** State of one decode run. Problems are collected, not thrown. */
export interface DecodeContext {
  /** Code for shape/type problems: `E_MANIFEST` or `E_CONTENT`. */
  code: ErrorCode;
  issues: Issue[];
  /** Stop recording after this many issues (the rest are summarized). */
  maxIssues: number;
  /**
   * Writing mode: accept plain JS numbers and `Date` objects and normalize timestamps to the
   * reference's spelling. Reading mode keeps timestamp text as written.
   */
  normalize: boolean;
  /**
   * Numbers arrive as plain JS numbers (writing mode, or reading through the fast parser, which
   * guarantees that integer fields hold integer literals) instead of `RawNumber`s.
   */
  plainNumbers: boolean;
  /**
   * Decode into the given objects (adding defaults, converting numbers) instead of copying.
   * Only for trees the reader owns (fresh from a parser); never for a caller's model.
   */
  inPlace: boolean;
}

/** State of one encode run. */
export interface EncodeContext {
  /** Round f64 values to 15 significant digits (content only, FORMAT-FACTS §3.4). */
  roundF64: boolean;
  /** Pretty (serde `to_string_pretty`, 2-space indent) or compact. */
  pretty: boolean;
}

/** Field builders shared by the struct tables (one per serde presence rule, see `Presence`). */
export const str: FieldType = 'string';
export const strVec: FieldType = { vec: 'string' };
/** A plain field: present and not null. */
export const req = (key: string, type: FieldType): FieldSpec => ({ key, type, presence: 'required' });
/** `Option<T>` written as `null` when None. */
export const nul = (key: string, type: FieldType): FieldSpec => ({ key, type, presence: 'nullable' });
/** `Option<T>` omitted when None. */
export const opt = (key: string, type: FieldType): FieldSpec => ({ key, type, presence: 'optional' });
/** `#[serde(default)]` field with its default and optional `skip_serializing_if`. */
export const def = (key: string, type: FieldType, d: () => unknown, skipWhen?: (v: unknown) => boolean): FieldSpec => ({
  key,
  type,
  presence: 'default',
  default: d,
  ...(skipWhen ? { skipWhen } : {}),
});

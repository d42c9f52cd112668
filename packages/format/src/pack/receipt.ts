/**
 * The pack receipt (spec/pack.md "Receipt"): what was delivered and what was not, joinable by
 * hashes, with no raw content — a load receipt in the sense of seed 000 ("proves selected context
 * crossed the boundary, privacy-safe input identities, delivered and suppressed counts"; it does
 * not claim usefulness).
 */
import { sha256Hex } from '../hash.js';
import { redactSecrets, surelyClean } from '../secrets.js';
import type { MergedNode } from '../graph-types.js';
import { estimateTokens } from './budget.js';
import { DigestArena, HEX_RUN } from './digests.js';
import { BYTES_PER_TOKEN, OMISSION_REASONS, TOKEN_NOTE, type Delivered, type FreshnessScope, type Omission, type OmissionReason, type PackFormat } from './types.js';

export interface PackReceipt {
  format: 'ctxpkg-receipt-v1';
  /** `sha256:<hex>` of the exact UTF-8 bytes of the pack. */
  pack_sha256: string;
  pack_format: PackFormat;
  pack_bytes: number;
  now: string;
  budget: {
    max_bytes: number;
    used_bytes: number;
    max_tokens_estimate: number;
    used_tokens_estimate: number;
    bytes_per_token: number;
    note: string;
  };
  /**
   * `mode` all|pinned; `not_selected`: deliverable items of the selected packages that a
   * pinned-only pack does not select (unpinned; 0 in mode all) — not omissions, not listed.
   */
  selection: { mode: 'all' | 'pinned'; focus: string | null; packages: string[] | null; not_selected: number };
  /**
   * `built_here` (only under `freshness: "auto"`, only when non-empty): installed packages the
   * caller knew to be built from this workspace, checked even without a fresh node (§6).
   */
  policy: {
    stale: string;
    disputed: string;
    freshness: FreshnessScope;
    built_here?: string[];
    min_activation: number;
    pins: string[];
    /** Pins that named no installed node, so the pack was delivered without them (only when some did). */
    pins_broken?: string[];
  };
  inputs: Array<{ package: string; version: string; content_hash: string }>;
  counts: {
    /** All nodes of the merged graph. */
    nodes: number;
    /** `section`/`scope` nodes (structure, not items). */
    structural: number;
    /** Deliverable nodes considered (after package/pinned-only selection). */
    candidates: number;
    delivered: number;
    suppressed: number;
    /** Delivered with a stale/absent/disputed flag. */
    flagged: number;
    pinned: number;
    by_reason: Record<OmissionReason, number>;
  };
  delivered: Delivered[];
  /**
   * Sorted by package, then id. In a receipt of `compilePack` they are built when first read
   * (`OmissionTable`); assigning replaces them.
   */
  omissions: Omission[];
}

/** `sha256:<hex>` of a node's content as UTF-8. */
export function contentHash(content: string): string {
  return 'sha256:' + sha256Hex(content);
}

/**
 * `id` with each secret in it replaced by `[REDACTED:<kind>]` (`redactSecrets`; `surelyClean`
 * answers first without a scan). A receipt names an omitted node by id, and a node withheld as
 * `secret` may be withheld for its id: written raw, the receipt would hold the secret the pack
 * withheld (spec/pack.md §10). Called for `secret` rows and superseding ids only, so the ~50k
 * `byte_budget` rows of a large render pay nothing.
 */
export function receiptId(id: string): string {
  return surelyClean(id) ? id : redactSecrets(id).text;
}

/** `receiptId` of each id (a new array). */
function receiptIds(ids: readonly string[]): string[] {
  return ids.map(receiptId);
}

/**
 * The omission record of a node. `contentHash` is `NodeFacts.omissionHash(node)`: when the
 * content contains a secret (whatever the reason) it is over the *redacted* content, so the
 * receipt cannot be used to confirm a guessed secret. A `superseded` omission carries the
 * superseding node ids (`superseded_by`).
 */
export function omissionOf(node: MergedNode, reason: OmissionReason, pinned: boolean, contentHash: string, kinds?: readonly string[]): Omission {
  const o: Omission = { package: node.package, version: node.version, id: reason === 'secret' ? receiptId(node.id) : node.id, content_hash: contentHash, reason };
  if (pinned) o.pinned = true;
  if (kinds && kinds.length > 0) o.secret_kinds = [...kinds];
  // Who superseded it: another package can supersede a node (even a pinned one), so the receipt
  // names the superseding node ids (qualified, so their package is visible; spec/pack.md §3).
  if (reason === 'superseded' && node.superseded_by && node.superseded_by.length > 0) o.superseded_by = receiptIds(node.superseded_by);
  return o;
}

const REASON_CODE: Readonly<Record<OmissionReason, number>> = Object.fromEntries(OMISSION_REASONS.map((r, i) => [r, i])) as Record<OmissionReason, number>;
/** Each reason's text in a receipt after the content hash's digits (reason names need no escaping). */
const REASON_TAIL: readonly string[] = OMISSION_REASONS.map((r) => `",\n      "reason": "${r}"`);
/** Bit of `OmissionTable`'s code byte: the omitted node is pinned. */
const PINNED = 0x80;

/**
 * The omission records of one compilation as parallel arrays — package, version and id by row,
 * the content hash's 32 bytes in a `DigestArena` by row, reason and pinned flag in one byte, the
 * rare secret kinds and superseding ids beside them — instead of one object per omitted node (a
 * 50k-node graph omits ~49k of them from a 32 KiB pack: their objects, then their hex strings,
 * were most of what a cold render kept alive through its scavenges, bench/render). Rows are
 * added in any order (`add`, then the row's digest written into `digests`); `toArray` gives the
 * records sorted by package, then id, as `omissionOf` builds them, and `receiptText` writes them
 * without building the records. The `sha256:<hex>` text of a row's hash is made only then.
 */
export class OmissionTable {
  /** Rows added. */
  length = 0;
  private pkg: string[];
  private version: string[];
  private id: string[];
  /**
   * The content hash of row `r` is slot `r`: written by whoever adds the row, right after `add`
   * (`NodeFacts.omissionDigestTo`, or `setHex`). A copy, not a view of the facts memo's digests:
   * a later compilation of a changed node must not change an earlier receipt.
   */
  readonly digests: DigestArena;
  private code: Uint8Array;
  /** Secret kinds and superseding ids by row (only rows that have some). */
  private extra: Map<number, { kinds?: string[]; by?: string[] }> | undefined;
  private sorted: Int32Array | undefined;

  /** A table for up to `capacity` rows (it grows past that). */
  constructor(capacity: number) {
    this.pkg = new Array<string>(capacity);
    this.version = new Array<string>(capacity);
    this.id = new Array<string>(capacity);
    this.digests = new DigestArena(capacity);
    this.code = new Uint8Array(capacity);
  }

  /**
   * Add the omission of `node` and return its row: the same record as `omissionOf(node, reason,
   * pinned, contentHash, kinds)` once the caller has written the 32 bytes of `contentHash` into
   * slot `row` of `digests` (`NodeFacts.omissionDigestTo(i, table.digests, row)`), which it must
   * do before the table is read. The node's package, version, id and superseding ids are read now
   * (the id of a `secret` row and superseding ids through `receiptId`: secrets redacted).
   */
  add(node: MergedNode, reason: OmissionReason, pinned: boolean, kinds?: readonly string[]): number {
    const r = this.length++;
    if (r >= this.code.length) this.grow();
    this.pkg[r] = node.package;
    this.version[r] = node.version;
    this.id[r] = reason === 'secret' ? receiptId(node.id) : node.id;
    this.code[r] = REASON_CODE[reason] | (pinned ? PINNED : 0);
    this.sorted = undefined;
    const withKinds = kinds !== undefined && kinds.length > 0;
    const by = reason === 'superseded' && node.superseded_by && node.superseded_by.length > 0 ? node.superseded_by : undefined;
    if (withKinds || by) {
      const x: { kinds?: string[]; by?: string[] } = {};
      if (withKinds) x.kinds = [...kinds];
      if (by) x.by = receiptIds(by);
      (this.extra ??= new Map()).set(r, x);
    }
    return r;
  }

  private grow(): void {
    const code = new Uint8Array(2 * this.code.length + 16);
    code.set(this.code);
    this.code = code;
    this.digests.reserve(code.length - 1);
  }

  /** Rows by package, then id (ties in the order added: the sort is stable). */
  private order(): Int32Array {
    if (this.sorted) return this.sorted;
    const n = this.length;
    const pkg = this.pkg;
    const id = this.id;
    // Rows usually come sorted already (merged graphs are sorted by id): checked in one pass.
    let inOrder = true;
    for (let r = 1; r < n && inOrder; r++) inOrder = compareRows(pkg, id, r - 1, r) <= 0;
    const rows = new Int32Array(n);
    for (let r = 0; r < n; r++) rows[r] = r;
    if (!inOrder) {
      const sorted = Array.from(rows).sort((a, b) => compareRows(pkg, id, a, b) || a - b);
      rows.set(sorted);
    }
    return (this.sorted = rows);
  }

  /** The records, sorted by package, then id (fresh objects and arrays on every call). */
  toArray(): Omission[] {
    const rows = this.order();
    const out = new Array<Omission>(rows.length);
    // The hex of the hashes HEX_RUN rows at a time (one decode each), read by slices.
    let hexes = '';
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k] as number;
      const c = this.code[r] as number;
      const j = k % HEX_RUN;
      if (j === 0) hexes = this.digests.hexOfSlots(rows, k, Math.min(rows.length, k + HEX_RUN));
      const o: Omission = { package: this.pkg[r] as string, version: this.version[r] as string, id: this.id[r] as string, content_hash: 'sha256:' + hexes.slice(64 * j, 64 * j + 64), reason: OMISSION_REASONS[c & ~PINNED] as OmissionReason };
      if (c & PINNED) o.pinned = true;
      const x = this.extra?.get(r);
      if (x?.kinds) o.secret_kinds = [...x.kinds];
      if (x?.by) o.superseded_by = [...x.by];
      out[k] = o;
    }
    return out;
  }

  /**
   * The records as the elements of a JSON array at depth 1 of a document written by
   * `JSON.stringify(…, null, 2)` — each `    {…}` with its members at six spaces — joined by
   * `,\n`: the same bytes `JSON.stringify` gives for `toArray()`'s objects there.
   */
  jsonElements(): string {
    const rows = this.order();
    const q = JSON.stringify;
    const digests = this.digests;
    // Rows of one package and version are adjacent: their text up to the id is built once per
    // run; after the hash, each reason's text is a constant.
    let pkg: string | undefined;
    let version: string | undefined;
    let head = '';
    // Each row's text is joined into a flat string with the rows around it, HEX_RUN at a time: the
    // pieces die young (a string grown by += stays one live tree of pieces per row until written,
    // which a cold process's scavenges copied: its GC was most of receiptText's time).
    const chunks: string[] = [];
    const part = new Array<string>(Math.min(rows.length, HEX_RUN));
    let p0 = 0;
    // The hex of each chunk's hashes in one string (one decode per chunk), read by slices.
    let hexes = '';
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k] as number;
      if (p0 === 0) hexes = digests.hexOfSlots(rows, k, Math.min(rows.length, k + part.length));
      const c = this.code[r] as number;
      const p = this.pkg[r] as string;
      const v = this.version[r] as string;
      if (p !== pkg || v !== version) {
        pkg = p;
        version = v;
        head = '    {\n      "package": ' + q(p) + ',\n      "version": ' + q(v) + ',\n      "id": ';
      }
      // Hex digits need no escaping.
      let s = head + q(this.id[r]) + ',\n      "content_hash": "sha256:' + hexes.slice(64 * p0, 64 * p0 + 64) + (REASON_TAIL[c & ~PINNED] as string);
      if (c & PINNED) s += ',\n      "pinned": true';
      const x = this.extra?.get(r);
      if (x?.kinds) s += ',\n      "secret_kinds": ' + jsonStrings(x.kinds);
      if (x?.by) s += ',\n      "superseded_by": ' + jsonStrings(x.by);
      part[p0++] = s + '\n    }';
      if (p0 === part.length || k === rows.length - 1) {
        chunks.push(p0 === part.length ? part.join(',\n') : part.slice(0, p0).join(',\n'));
        p0 = 0;
      }
    }
    return chunks.join(',\n');
  }
}

/** A non-empty array of strings as `JSON.stringify(…, null, 2)` writes it at depth 2. */
function jsonStrings(xs: readonly string[]): string {
  let s = '[\n';
  for (let i = 0; i < xs.length; i++) s += (i > 0 ? ',\n        ' : '        ') + JSON.stringify(xs[i]);
  return s + '\n      ]';
}

function compareRows(pkg: readonly string[], id: readonly string[], a: number, b: number): number {
  return cmp(pkg[a] as string, pkg[b] as string) || cmp(id[a] as string, id[b] as string);
}

/** Receipts whose `omissions` are still an `OmissionTable` not turned into records. */
const lazyOmissions = new WeakMap<PackReceipt, OmissionTable>();

/** Counts per reason with every reason present (zeros included), in `OMISSION_REASONS` order. */
export function countByReason(omissions: readonly Pick<Omission, 'reason'>[]): Record<OmissionReason, number> {
  const out = Object.fromEntries(OMISSION_REASONS.map((r) => [r, 0])) as Record<OmissionReason, number>;
  for (let i = 0; i < omissions.length; i++) out[(omissions[i] as Pick<Omission, 'reason'>).reason]++;
  return out;
}

/**
 * Build the receipt (keys in the order above; omissions sorted by package, then id). `counts`,
 * when given, are the omissions' counts by reason (`countByReason(omissions)`) and how many of
 * them are pinned, known to a caller that made them (the pack compiler): then the ~50k
 * omissions of a large graph are not walked twice more to count them (bench/render). A wrong
 * `counts` gives a wrong receipt: compile.equivalence.test.ts pins the compiler's receipts.
 * `omissions` given as an `OmissionTable` become the receipt's records when `omissions` is first
 * read (a lazy property; `receiptText` writes them without building them).
 */
export function buildReceipt(args: {
  text: string;
  bytes: number;
  format: PackFormat;
  now: string;
  maxBytes: number;
  selection: PackReceipt['selection'];
  policy: PackReceipt['policy'];
  inputs: PackReceipt['inputs'];
  nodes: number;
  structural: number;
  candidates: number;
  delivered: Delivered[];
  omissions: Omission[] | OmissionTable;
  counts?: { byReason: Record<OmissionReason, number>; pinnedOmissions: number };
}): PackReceipt {
  const table = args.omissions instanceof OmissionTable ? args.omissions : undefined;
  const omissions = table ? (args.counts ? undefined : table.toArray()) : [...(args.omissions as Omission[])].sort((a, b) => cmp(a.package, b.package) || cmp(a.id, b.id));
  const receipt: PackReceipt = {
    format: 'ctxpkg-receipt-v1',
    pack_sha256: 'sha256:' + sha256Hex(args.text),
    pack_format: args.format,
    pack_bytes: args.bytes,
    now: args.now,
    budget: {
      max_bytes: args.maxBytes,
      used_bytes: args.bytes,
      max_tokens_estimate: estimateTokens(args.maxBytes),
      used_tokens_estimate: estimateTokens(args.bytes),
      bytes_per_token: BYTES_PER_TOKEN,
      note: TOKEN_NOTE,
    },
    selection: args.selection,
    policy: args.policy,
    inputs: args.inputs,
    counts: {
      nodes: args.nodes,
      structural: args.structural,
      candidates: args.candidates,
      delivered: args.delivered.length,
      suppressed: omissions ? omissions.length : (table as OmissionTable).length,
      flagged: args.delivered.filter((d) => d.flags.length > 0).length,
      pinned: args.delivered.filter((d) => d.section === 'pinned').length + (args.counts ? args.counts.pinnedOmissions : (omissions as Omission[]).filter((o) => o.pinned).length),
      by_reason: args.counts ? { ...args.counts.byReason } : countByReason(omissions as Omission[]),
    },
    delivered: args.delivered,
    omissions: omissions ?? [],
  };
  if (!omissions) {
    // Last key, in place: the records are built on first read (then a plain data property).
    const t = table as OmissionTable;
    const settle = (value: Omission[]): Omission[] => {
      lazyOmissions.delete(receipt);
      Object.defineProperty(receipt, 'omissions', { value, writable: true, enumerable: true, configurable: true });
      return value;
    };
    Object.defineProperty(receipt, 'omissions', {
      get: () => settle(t.toArray()),
      set: (value: Omission[]) => void settle(value),
      enumerable: true,
      configurable: true,
    });
    lazyOmissions.set(receipt, t);
  }
  return receipt;
}

/**
 * The receipt file text: 2-space JSON, LF-terminated (deterministic: keys are built in order).
 * Omissions the compiler left in an `OmissionTable` (not read yet) are written from the table,
 * the same bytes as `JSON.stringify` of their records (receipt.test.ts compares the two).
 */
export function receiptText(receipt: PackReceipt): string {
  const table = lazyOmissions.get(receipt);
  if (table !== undefined && table.length > 0) {
    // The omissions not built yet (the usual `ctxpkg render`): the rest of the receipt through
    // JSON.stringify with an empty list in their place — the last key — then their elements
    // written into it, the same bytes as stringifying their records.
    const rest: Record<string, unknown> = {};
    const keys = Object.keys(receipt);
    for (const k of keys) if (k !== 'omissions') rest[k] = (receipt as unknown as Record<string, unknown>)[k];
    rest.omissions = [];
    const text = JSON.stringify(rest, null, 2);
    const tail = '\n  "omissions": []\n}';
    if (keys[keys.length - 1] === 'omissions' && text.endsWith(tail)) {
      return text.slice(0, text.length - tail.length) + '\n  "omissions": [\n' + table.jsonElements() + '\n  ]\n}\n';
    }
  }
  return JSON.stringify(receipt, null, 2) + '\n';
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

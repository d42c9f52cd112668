/**
 * Facts about one node that depend only on its own text — the secret kinds found in it, the
 * content hash its receipt entry carries and the force of its text (`forceOf`, order key 3b) —
 * computed once and remembered for later compilations of the same graph in the same process (the MCP server renders the same graph many times;
 * `ctxpkg sync` compiles one pack per package). Pure and exact: a remembered entry is used only
 * while the node's `content`, `id`, `category` and `file_path` are the same strings as when it
 * was computed; otherwise it is recomputed.
 *
 * `factsFor(graph)` is the memo of one graph's node array, addressed by position in it (parallel
 * arrays: no object or map entry per node, which matters when 50k nodes are screened once; maps
 * hold only the rare facts of nodes with secrets),
 * kept in a `WeakMap` keyed by the array so it goes away with the graph.
 */
import type { MergedNode } from '../graph-types.js';
import { GATE_FLAGS, GATE_WORDS_SHIFT } from '../secret-gate.js';
import { redactSecrets, scanSecrets, secretKinds, surelyClean, surelyCleanWith, type SecretFinding } from '../secrets.js';
import { DigestArena } from './digests.js';
import { FORCE_WORDS, forceOf, forceOfVerdict } from './order.js';

const NONE: readonly string[] = Object.freeze([]);
/** The secret gate that finds the words of `forceOf` in the same pass (`surelyCleanWith`). */
const gateAndForce = surelyCleanWith(FORCE_WORDS);
const NO_FINDINGS: readonly SecretFinding[] = Object.freeze([]);

/** The metadata line scanned with a node: id, category and file path joined by LF. */
function metaText(n: Pick<MergedNode, 'id' | 'category' | 'file_path'>): string {
  return `${n.id}\n${n.category ?? ''}\n${n.file_path ?? ''}`;
}

/** JavaScript `\s` by character code (the secret gate's whitespace, secret-gate.ts). */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** True when the first character of `s` that is not whitespace is `:` or `=` (an operator the gate would read with the line before). */
function opensWithOperator(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isSpace(c)) return c === 58 || c === 61;
  }
  return false;
}

/**
 * True when `scanSecrets(metaText(n))` certainly finds nothing, without building that text: the
 * secret gate (`surelyClean`) rules out each of the three lines on its own, and no line after the
 * first opens (after whitespace) with `:` or `=`. That is the gate's verdict on the joined text:
 * a literal hint or a token run never spans the LF between lines, and an operator's key is read
 * backwards over whitespace (LF included) only when nothing but whitespace precedes it on its
 * line (secret-gate.ts `GATE_ASSIGN`). Anything else is scanned joined, as before.
 */
function metaSurelyClean(n: Pick<MergedNode, 'id' | 'category' | 'file_path'>, memo: FieldMemo): boolean {
  return surelyClean(n.id) && memo.clean(0, n.category ?? '') && memo.clean(1, n.file_path ?? '');
}

/**
 * The verdict `surelyClean(s) && !opensWithOperator(s)` on the category (slot 0) and the file
 * path (slot 1), remembered for the value each slot saw last: consecutive nodes nearly always
 * share both (same strings, compared by value), so the gate reads them once per run instead of
 * once per node. Exact: the verdict is a function of the text alone.
 */
class FieldMemo {
  private readonly text: [string | undefined, string | undefined] = [undefined, undefined];
  private readonly verdict: [boolean, boolean] = [false, false];

  clean(slot: 0 | 1, s: string): boolean {
    if (this.text[slot] === s) return this.verdict[slot];
    const v = surelyClean(s) && !opensWithOperator(s);
    this.text[slot] = s;
    this.verdict[slot] = v;
    return v;
  }
}

/**
 * Secret findings in everything a pack would show of a node: its content, then its id, category
 * and file path (one line each, scanned together). Positions of the metadata findings refer to
 * the joined metadata text. Source of the rule: spec/pack.md §3.
 */
export function nodeSecrets(n: Pick<MergedNode, 'content' | 'id' | 'category' | 'file_path'>): SecretFinding[] {
  const found = scanSecrets(n.content);
  for (const x of scanSecrets(metaText(n))) found.push(x);
  return found;
}

/** How many nodes `touchNodes` reads ahead at a time (a power of two). */
export const TOUCH_BLOCK = 64;

/**
 * Reads ahead the last code unit of the id and the first of the content of `nodes[from …
 * from + count)` (fewer at the end) and returns a value of no meaning (keep it somewhere, so the
 * reads are not optimized away). Screening a freshly parsed graph node by node waits on each
 * node's scattered strings in turn (the secret gate is one long dependent computation per text);
 * reading a block's strings first — short, independent steps — lets the CPU fetch them at once.
 * Screening 50k bench nodes (`secretKinds` of each, fresh graph, interleaved, loaded machine):
 * 138 → 110 ms.
 */
export function touchNodes(nodes: readonly MergedNode[], from: number, count: number): number {
  const end = from + count < nodes.length ? from + count : nodes.length;
  let t = 0;
  for (let i = from; i < end; i++) {
    const n = nodes[i] as MergedNode;
    const id = n.id;
    t ^= id.charCodeAt(id.length - 1) ^ n.content.charCodeAt(0);
  }
  return t;
}

/** `NodeFacts.state` bits: the secret kinds are current (for the entry's content, id, category and path) … */
const SCREENED = 1;
/** … and not empty (they are in `kindsOf`) … */
const HAS_KINDS = 2;
/** … and the content itself (not only the metadata) has a finding. */
const CONTENT_SECRET = 4;
/**
 * The SHA-256 of the entry's content is in `digests` (slot = position). Like the next bit it
 * depends on the content alone, so it outlives a change of the metadata; `restart` clears both.
 */
const HASHED = 8;
/** The SHA-256 of the entry's *redacted* content is in `redacted` (slot `redactedSlot.get(i)`). */
const REDACTED = 16;
/** The bits `at` keeps when it screens an entry again for the same content. */
const OF_CONTENT = HASHED | REDACTED;

/** Remembered facts of the nodes of one node array, by position (see module docstring). */
export class NodeFacts {
  /**
   * The content every remembered fact of a node's text (kinds, hashes, force) was computed from.
   * Node-sized arrays of strings are few on purpose: on 50k nodes each is a ~200 KB object a cold
   * compilation allocates and fills (~0.25 ms each here, bench/render); the rare facts (kinds,
   * redacted hashes) are kept in maps and the rest in typed arrays.
   */
  private readonly content: Array<string | undefined>;
  private readonly id: Array<string | undefined>;
  private readonly category: Array<string | undefined>;
  private readonly path: Array<string | undefined>;
  /** `SCREENED | HAS_KINDS | CONTENT_SECRET | HASHED | REDACTED` bits by position (0: nothing known since the content was set). */
  private readonly state: Uint8Array;
  /** Secret kinds by position, only of entries that have some (`HAS_KINDS`). */
  private kindsOf: Map<number, readonly string[]> | undefined;
  /**
   * SHA-256 of the content by position (`HASHED`), as bytes: no hex string per node (~80 bytes of
   * young heap each, ~50k of them live through a cold render's scavenges, bench/render); the hex
   * is written when a hash is read. Made on first use.
   */
  private digests: DigestArena | undefined;
  /**
   * SHA-256 of the redacted content (`REDACTED`): only nodes with a secret in their content have
   * one (rare). A position keeps its slot when its content changes (no slot is ever freed).
   */
  private redacted: DigestArena | undefined;
  private redactedSlot: Map<number, number> | undefined;
  /** `forceOf(content) + 1` (0: not computed yet). */
  private readonly forceValue: Uint8Array;
  private readonly fields = new FieldMemo();

  constructor(readonly nodes: readonly MergedNode[]) {
    const n = nodes.length;
    this.content = new Array(n);
    this.id = new Array(n);
    this.category = new Array(n);
    this.path = new Array(n);
    this.state = new Uint8Array(n);
    this.forceValue = new Uint8Array(n);
  }

  /**
   * `forceOf(nodes[i].content)` (order key 3b), remembered while the content is the same string:
   * computed by the secret gate's pass when the node was screened first (`at`), else on its own.
   */
  force(i: number): number {
    const content = (this.nodes[i] as MergedNode).content;
    if (this.content[i] !== content) this.restart(i, content);
    let f = this.forceValue[i] as number;
    if (f === 0) this.forceValue[i] = f = forceOf(content) + 1;
    return f - 1;
  }

  /** Forget every fact of entry `i` (computed from another content) and make `content` its text. */
  private restart(i: number, content: string): void {
    this.content[i] = content;
    this.state[i] = 0;
    this.kindsOf?.delete(i);
    this.forceValue[i] = 0;
  }

  /** Make the entry of `nodes[i]` current (computing the secret scan if needed); returns the node. */
  private at(i: number): MergedNode {
    const n = this.nodes[i] as MergedNode;
    if (((this.state[i] as number) & SCREENED) !== 0 && this.content[i] === n.content && this.id[i] === n.id && this.category[i] === n.category && this.path[i] === n.file_path) return n;
    // Most nodes are clean: one gate pass per text proves it, with no findings array or joined
    // metadata text built (the full scan runs only when the gate cannot rule a rule out). The
    // content's pass also gives its force (order key 3b), which `force(i)` then reads.
    const content = n.content;
    const gated = gateAndForce(content);
    const inContent = (gated & GATE_FLAGS) === 0 ? NO_FINDINGS : scanSecrets(content);
    // The hashes stay valid when only the metadata changed; a first entry has none to forget.
    const was = this.content[i];
    if (was !== content) {
      if (was !== undefined) this.restart(i, content);
      else this.content[i] = content;
    }
    this.forceValue[i] = forceOfVerdict(gated >>> GATE_WORDS_SHIFT) + 1;
    const inMeta = metaSurelyClean(n, this.fields) ? NO_FINDINGS : scanSecrets(metaText(n));
    // The digests are of the content, which is the one they were computed from (`restart` cleared them otherwise).
    let state = SCREENED | (inContent.length > 0 ? CONTENT_SECRET : 0) | ((this.state[i] as number) & OF_CONTENT);
    if (inContent.length + inMeta.length > 0) {
      (this.kindsOf ??= new Map()).set(i, secretKinds([...inContent, ...inMeta]));
      state |= HAS_KINDS;
    } else if (((this.state[i] as number) & HAS_KINDS) !== 0) (this.kindsOf as Map<number, readonly string[]>).delete(i);
    this.state[i] = state;
    this.id[i] = n.id;
    this.category[i] = n.category;
    this.path[i] = n.file_path;
    return n;
  }

  /** Kinds of secrets a pack would show of `nodes[i]` (sorted, distinct; empty when clean). Never the values. */
  secretKinds(i: number): readonly string[] {
    this.at(i);
    return ((this.state[i] as number) & HAS_KINDS) !== 0 ? ((this.kindsOf as Map<number, readonly string[]>).get(i) as readonly string[]) : NONE;
  }

  /** `sha256:<hex>` of the content of `nodes[i]` as UTF-8 (spec/pack.md §10): `sha256:` and 64 lowercase hex digits. */
  contentHash(i: number): string {
    const n = this.at(i);
    return 'sha256:' + this.contentDigest(i, n.content).hex(i);
  }

  /**
   * The content hash an omission record of `nodes[i]` carries: of the content, or — when the
   * content contains a secret, whatever the reason of the omission — of the *redacted* content,
   * so a receipt can never confirm a guessed secret (spec/pack.md §3, §10). `sha256:` and 64
   * lowercase hex digits.
   */
  omissionHash(i: number): string {
    this.at(i);
    return 'sha256:' + this.omissionHex(i);
  }

  /**
   * `omissionHash(i)` for a node whose entry was made current since the node last changed — its
   * `secretKinds(i)` was asked in this compilation (the pack compiler asks it of every node that
   * passes screening's `superseded` and `expired` checks, and changes no node) — without reading
   * the node's four fields again: the hash is of the content the entry was computed from, which
   * is the node's. A node with no entry gets `omissionHash(i)`. Saves a read of every omitted
   * node's object when ~50k are omitted (bench/render).
   */
  omissionHashOfCurrent(i: number): string {
    if (!this.screened(i)) this.at(i);
    return 'sha256:' + this.omissionHex(i);
  }

  /**
   * Write the digest of `omissionHash(i)` (its 32 bytes, not its text) into slot `slot` of `to`:
   * what the pack compiler keeps per omission (`OmissionTable.digests`), so no string is built per
   * omitted node. Throws `RangeError` when `to` has no such slot.
   */
  omissionDigestTo(i: number, to: DigestArena, slot: number): void {
    this.at(i);
    this.copyOmissionDigest(i, to, slot);
  }

  /** `omissionDigestTo` for a node whose entry is current (see `omissionHashOfCurrent`). */
  omissionDigestOfCurrentTo(i: number, to: DigestArena, slot: number): void {
    if (!this.screened(i)) this.at(i);
    this.copyOmissionDigest(i, to, slot);
  }

  /** True when entry `i` has been screened since its content was last set (its facts are of its remembered content). */
  private screened(i: number): boolean {
    return this.content[i] !== undefined && ((this.state[i] as number) & SCREENED) !== 0;
  }

  /** The arena holding the SHA-256 of `content` (entry `i`'s current content) at slot `i`, hashing it first if needed. */
  private contentDigest(i: number, content: string): DigestArena {
    const d = (this.digests ??= new DigestArena(this.nodes.length));
    const s = this.state[i] as number;
    if ((s & HASHED) === 0) {
      d.hash(i, content);
      this.state[i] = s | HASHED;
    }
    return d;
  }

  /** The slot in `redacted` of the SHA-256 of entry `i`'s redacted content (its current content), hashing it first if needed. */
  private redactedDigest(i: number): number {
    const slots = (this.redactedSlot ??= new Map());
    const d = (this.redacted ??= new DigestArena(4));
    let slot = slots.get(i);
    if (slot === undefined) slots.set(i, (slot = slots.size));
    const s = this.state[i] as number;
    if ((s & REDACTED) === 0) {
      d.reserve(slot);
      d.hash(slot, redactSecrets(this.content[i] as string).text);
      this.state[i] = s | REDACTED;
    }
    return slot;
  }

  /** Hex of the omission digest of screened entry `i`. */
  private omissionHex(i: number): string {
    if (((this.state[i] as number) & CONTENT_SECRET) === 0) return this.contentDigest(i, this.content[i] as string).hex(i);
    const slot = this.redactedDigest(i);
    return (this.redacted as DigestArena).hex(slot);
  }

  /** Copy the omission digest of screened entry `i` into slot `slot` of `to`. */
  private copyOmissionDigest(i: number, to: DigestArena, slot: number): void {
    if (((this.state[i] as number) & CONTENT_SECRET) === 0) to.copy(slot, this.contentDigest(i, this.content[i] as string), i);
    else {
      const from = this.redactedDigest(i);
      to.copy(slot, this.redacted as DigestArena, from);
    }
  }
}

const byNodes = new WeakMap<readonly MergedNode[], NodeFacts>();

/** The facts memo of `graph.nodes` (created on first use; renewed when the array's length changes). */
export function factsFor(graph: { nodes: readonly MergedNode[] }): NodeFacts {
  let m = byNodes.get(graph.nodes);
  if (!m || m.nodes.length !== graph.nodes.length) {
    m = new NodeFacts(graph.nodes);
    byNodes.set(graph.nodes, m);
  }
  return m;
}

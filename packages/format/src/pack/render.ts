/**
 * The renderer contract of the pack compiler (spec/pack.md §4, §8). A pack is laid out as
 *
 *   prefix + Σ over the selected items in output order (`compareOutput`):
 *              [headers of the item's groups not written yet, outermost first] + block
 *          (blocks joined by `separator`) + suffix
 *
 * A group (package, source file, heading) is written once, before its first item; every piece
 * is a fixed string per item or group, so the size of a selection is the sum of its pieces and
 * the compiler can keep the budget exact over the UTF-8 bytes written (select.ts).
 */
import type { SectionRef } from './sections.js';
import type { OmissionReason, PackFormat, SectionName } from './types.js';

/** A node ready to render. All strings are raw package text; renderers escape them. */
export interface RenderItem {
  id: string;
  package: string;
  version: string;
  local_id: string;
  type: string;
  content: string;
  file_path?: string;
  line_start?: number;
  line_end?: number;
  source?: string;
  /** Scope globs (empty: applies everywhere). */
  scope: readonly string[];
  /**
   * Heading path: the enclosing `section` nodes, outermost first (`sectionPathResolver`); the
   * first is the file's root section when the node came from an importer.
   */
  sections: readonly SectionRef[];
  /** Position among nodes that share their first source line (`sequenceResolver`; 0 by default). */
  seq: number;
  /**
   * The node's package is the project's own instructions (`trust.instructions`, signed, signer
   * pinned; spec/pack.md §11 "Trust"): rendered outside the untrusted fence, before it.
   */
  trusted?: boolean;
  /**
   * The scope the whole pack states once (`PackInput.statedScope`: a path-scoped rule file's
   * title and frontmatter): a file group or node whose scope is this set writes no `applies to:`
   * line of its own. The same array for every item of a pack.
   */
  statedScope?: readonly string[];
  /** Flags shown with the node: `stale`, `absent`, `disputed`. */
  flags: readonly string[];
  /** For `disputed`: the qualified ids it conflicts with. */
  disputed_with: readonly string[];
  section: SectionName;
}

/** What the frame (header, trust line, banner, footer, omission summary) shows. */
export interface FrameInfo {
  title: string;
  inputs: ReadonlyArray<{ package: string; version: string }>;
  focus?: string;
  /** Omissions per reason (all reasons, zeros included). */
  omitted: Readonly<Record<OmissionReason, number>>;
  pinnedOmitted: number;
  /**
   * What the pack selects from (spec/pack.md §8 "Layout"): `all` deliverable items in scope, or
   * — the always-loaded AGENTS.md/CLAUDE.md block — `pinned` items only. `items` counts the
   * deliverable (non-structural) nodes in scope, `pinned` those among them that are pinned.
   * In `pinned` mode the omission summary counts omissions among the pinned items only; the
   * `items − pinned` unpinned items are *not selected*, which the selection line says.
   * `focused` (only with a focus): how many of the `items` the focus selects (focus.ts); the
   * others are not selected either, and the selection line says so.
   */
  selection: { mode: 'all' | 'pinned'; items: number; pinned: number; focused?: number };
  /** Extra header lines (e.g. the package index of an agent file), trusted text from ctxpkg. */
  notes: readonly string[];
  /**
   * True when the caller writes a receipt for this pack (`ctxpkg render`): only then does the
   * omission summary say that each omission is listed with its hash in the receipt.
   */
  receipt: boolean;
  /** `package@version` of the trusted packages among the inputs (delivered as instructions, outside the fence), sorted. */
  trusted: readonly string[];
  /**
   * `package@version` of the trusted packages that have at least one item in this pack, sorted:
   * the ones the instructions sentence names (render-md.ts `instructionsLine`; attack pass 2,
   * item 6: a focus that selected only a vendor section still told the reader to follow
   * "Instructions from @acme/rules@1.0.0", which the pack did not hold). The compiler sizes the
   * frame with none and charges the sentence to the trusted items (`Renderer.instructionsCost`).
   * Absent: `trusted` (a caller whose frame lists every trusted input).
   */
  instructions?: readonly string[];
  /**
   * `pack` (default; `ctxpkg render`): the full header — inputs, omission summary by reason.
   * `agent` (agent files written by `ctxpkg sync`): only what an agent can act on — the title,
   * the caller's notes and, when items were left out for space, one plain sentence saying how
   * many and how to reach them (spec/pack.md §8 "Agent-file header"). Counts by reason, inputs
   * and policy live in the receipt.
   */
  style?: 'pack' | 'agent';
}

/** A group header: written once, before the first item of the group (`key` identifies it). */
export interface RenderGroup {
  key: string;
  text: string;
}

/**
 * A pack's frame: `prefix` + [trusted items] + [`fenceOpen` + other items + `fenceClose`] +
 * `suffix`. The fence (in Markdown: the trust line and the untrusted banner, then the footer)
 * encloses the items that are not the project's own instructions; it is written only when at
 * least one such item is selected, so a file of trusted instructions carries no empty fence.
 * The compiler counts the fence as a group of every untrusted item (its bytes are
 * `fenceOpen + fenceClose`, paid once by the first one taken), so the budget stays exact.
 */
export interface Frame {
  prefix: string;
  fenceOpen: string;
  fenceClose: string;
  suffix: string;
}

export interface Renderer {
  format: PackFormat;
  frame(info: FrameInfo): Frame;
  /**
   * `utf8Length(prefix) + utf8Length(suffix)` of `frame(info)` in bytes (optional: the compiler
   * builds the frame and measures it otherwise), for a renderer that can tell it without building
   * the whole text — the selection asks for the frame's size at every omission count it reaches.
   */
  frameBytes?(info: FrameInfo): number;
  /**
   * The groups an item belongs to, outermost first (Markdown: package, source file, each heading
   * of its path; JSON: none). Depends only on the item's package, version, file and sections.
   */
  groups(item: RenderItem): readonly RenderGroup[];
  block(item: RenderItem): string;
  /**
   * A lower bound of `utf8Length(block(item))` from field lengths alone (no escaping, no
   * rendering); valid for any flags (flags only add text), so the selection can skip candidates
   * that cannot fit before screening and rendering them (select.ts). Reads `sections` and
   * `scope` by their contents only (the compiler takes an item with both empty as its own bare
   * form).
   */
  blockLowerBound(item: RenderItem): number;
  /**
   * `blockLowerBound` from the only fields it reads (optional; a renderer whose bound depends on
   * nothing else): for every item with this `content`, `file_path` and `sections` (by their
   * contents) it equals `blockLowerBound(item)`, in UTF-8 bytes. The compiler then bounds all
   * candidates without a scratch item each.
   */
  blockLowerBoundOf?(content: string, filePath: string | undefined, sections: readonly SectionRef[]): number;
  separator: string;
  /**
   * The note written after the last delivered item of a heading section when only `taken` of its
   * `members` candidates are delivered (spec/pack.md §8 "Partial sections"); absent: no notes.
   * `heading` is the section's focus label (focus.ts `HeadingIndex.label`: words, spaces and `>`
   * only), so the note can name the command that prints the rest; undefined when it has none.
   * Called only with `0 < taken < members`; the same arguments give the same text.
   */
  partialNote?(taken: number, members: number, heading?: string): string;
  /** `utf8Length(partialNote(taken, members, heading))`, computed without building the note (optional: the compiler measures the note otherwise). */
  partialNoteBytes?(taken: number, members: number, heading?: string): number;
  /** A lower bound of the UTF-8 size of any block (lets the selection stop early). */
  minBlockBytes: number;
  /**
   * What naming trusted packages in `FrameInfo.instructions` adds to the frame, in UTF-8 bytes, as
   * pieces the compiler charges like group headers: `shared`, once when any trusted item is
   * selected, and `each(pkgAtVersion)` for each trusted package with an item. For any set of
   * packages, the frame with them named is exactly the frame with none plus `shared` plus their
   * `each` (positive numbers). Absent: the frame does not depend on `instructions`.
   */
  instructionsCost?: { shared: number; each(pkgAtVersion: string): number };
}

/** Each omission reason in words an agent can act on (the reason codes stay in JSON and the receipt). */
export const OMISSION_WORDS: Readonly<Record<OmissionReason, string>> = {
  superseded: 'superseded by another item',
  expired: 'expired',
  secret: 'withheld: they hold a secret',
  disputed: 'disputed by another item',
  absent: 'their source file is gone',
  stale: 'stale: their source changed',
  byte_budget: 'did not fit',
};

/**
 * The omission summary sentence of a pack (spec/pack.md §8), in words rather than reason codes
 * (new-user 2 item 9). Mode `all`: `none` or `N (n did not fit, m expired, …; k of them
 * pinned)`. Mode `pinned` (the omissions are among the pinned items only):
 * `none of the P pinned items` or `N of the P pinned items (…)`. When the caller writes a receipt
 * (`info.receipt`), a non-empty summary ends `; the receipt lists each` — never otherwise
 * (issue 13 item 9).
 */
export function omissionSummary(info: FrameInfo): string {
  // The reasons with a count, in the object's own key order (that of `Object.entries`), joined
  // by `, ` — a loop building the one string: the pack compiler asks for the frame ~200 times
  // per render, and the entries, filter and map arrays were young garbage each time.
  const omitted = info.omitted;
  let total = 0;
  let reasons = '';
  for (const r in omitted) {
    if (!Object.hasOwn(omitted, r)) continue;
    const n = omitted[r as OmissionReason];
    if (!(n > 0)) continue;
    total += n;
    reasons += `${reasons === '' ? '' : ', '}${n} ${OMISSION_WORDS[r as OmissionReason]}`;
  }
  const listed = info.receipt ? '; the receipt lists each' : '';
  if (info.selection.mode === 'pinned') {
    const of = `of the ${info.selection.pinned} pinned ${info.selection.pinned === 1 ? 'item' : 'items'}`;
    return total === 0 ? `none ${of}` : `${total} ${of} (${reasons})${listed}`;
  }
  if (total === 0) return 'none';
  const pinned = info.pinnedOmitted > 0 ? `; ${info.pinnedOmitted} of them pinned` : '';
  return `${total} (${reasons}${pinned})${listed}`;
}

const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** Position of a node or section in its file: its first line (unknown last), then its id. */
const cmpAt = (la: number | undefined, ia: string, lb: number | undefined, ib: string): number =>
  (la ?? Number.MAX_SAFE_INTEGER) - (lb ?? Number.MAX_SAFE_INTEGER) || cmpStr(ia, ib);

/** The file group key of an item: its `file_path`, or `''` for nodes without one. */
export function fileKey(item: Pick<RenderItem, 'file_path'>): string {
  return item.file_path ?? '';
}

/**
 * The output order of a pack (spec/pack.md §8): trusted items first (they are written before
 * the untrusted banner), then by package (then version), source file (nodes
 * without a file first), then heading path — at each level the section's own items before its
 * subsections, items and subsections each by first line, then id — and finally the item's own
 * first line, its position among nodes on that line (`seq`), and id. For imported Markdown this is source order, and each section's items are
 * contiguous, so every heading is written once. A total order (ids are unique).
 */
export function compareOutput(a: RenderItem, b: RenderItem): number {
  const head = (b.trusted ? 1 : 0) - (a.trusted ? 1 : 0) || cmpStr(a.package, b.package) || cmpStr(a.version, b.version) || cmpStr(fileKey(a), fileKey(b));
  if (head !== 0) return head;
  const n = Math.max(a.sections.length, b.sections.length);
  for (let i = 0; i < n; i++) {
    const sa = a.sections[i];
    const sb = b.sections[i];
    if (sa === undefined || sb === undefined) {
      if (sa === sb) break;
      return sa === undefined ? -1 : 1; // the section's own items come before its subsections
    }
    if (sa.id !== sb.id) return cmpAt(sa.line_start, sa.id, sb.line_start, sb.id);
  }
  return (a.line_start ?? Number.MAX_SAFE_INTEGER) - (b.line_start ?? Number.MAX_SAFE_INTEGER) || a.seq - b.seq || cmpStr(a.id, b.id);
}

/**
 * The selection line of a pinned-only pack: `pinned items only — P of N items pinned (pin with
 * "context.pins" in ctxpkg.json); the other N−P are not in this block`; of a focused pack: `the
 * F of N items the focus names; the other N−F are not in this pack (\`ctxpkg render\` without
 * --focus has them)` (`all N items: the focus names each` when it names all); null otherwise (every item is a candidate).
 */
export function selectionLine(info: FrameInfo): string | null {
  const s = info.selection;
  if (s.mode !== 'pinned' && s.focused !== undefined) {
    const f = s.focused;
    const rest = s.items - f;
    if (rest === 0) return f === 1 ? 'the one item, which the focus names' : `all ${f} items: the focus names each`;
    return `the ${f} of ${s.items} items the focus names; the other ${rest} ${rest === 1 ? 'is' : 'are'} not in this pack (\`ctxpkg render\` without --focus has them)`;
  }
  if (s.mode !== 'pinned') return null;
  const rest = s.items - s.pinned;
  const restText = rest === 0 ? 'every installed item is pinned' : `the other ${rest} ${rest === 1 ? 'is' : 'are'} not in this block`;
  return `pinned items only — ${s.pinned} of ${s.items} ${s.items === 1 ? 'item' : 'items'} pinned (pin with "context.pins" in ctxpkg.json); ${restText}`;
}

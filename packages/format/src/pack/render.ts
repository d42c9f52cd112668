/**
 * The renderer contract of the pack compiler. A pack is laid out as
 * `prefix + Σ(section header + blocks joined by separator) + suffix`, where blocks of all
 * sections are joined by one `separator`; the compiler measures every piece in UTF-8 bytes, so
 * the budget is exact over the rendered output (spec/pack.md "Layout").
 */
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
  /** Enclosing section titles, outermost first. */
  breadcrumb: readonly string[];
  /** Flags shown with the node: `stale`, `absent`, `disputed`. */
  flags: readonly string[];
  /** For `disputed`: the qualified ids it conflicts with. */
  disputed_with: readonly string[];
  section: SectionName;
}

/** What the frame (header, trust line, banner, footer, omission summary) shows. */
export interface FrameInfo {
  title: string;
  /** Printed as `generated:` when set. */
  now?: string;
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
   */
  selection: { mode: 'all' | 'pinned'; items: number; pinned: number };
  /** Extra header lines (e.g. the package index of an agent file), trusted text from ctxpkg. */
  notes: readonly string[];
}

export interface Renderer {
  format: PackFormat;
  frame(info: FrameInfo): { prefix: string; suffix: string };
  sectionHeader(section: SectionName): string;
  block(item: RenderItem): string;
  /**
   * A lower bound of `utf8Length(block(item))` from field lengths alone (no escaping, no
   * rendering); valid for any flags (flags only add text), so the selection can skip candidates
   * that cannot fit before screening and rendering them (select.ts).
   */
  blockLowerBound(item: RenderItem): number;
  separator: string;
  /** A lower bound of the UTF-8 size of any block (lets the selection stop early). */
  minBlockBytes: number;
}

/**
 * The omission summary sentence shared by renderers. Mode `all`: `none` or
 * `N (reason n, …; k pinned); each listed with its hash in the receipt`. Mode `pinned` (the
 * omissions are among the pinned items only): `none of the P pinned items` or
 * `N of the P pinned items (reason n, …); each listed …`.
 */
export function omissionSummary(info: FrameInfo): string {
  const parts = Object.entries(info.omitted).filter(([, n]) => n > 0);
  const total = parts.reduce((s, [, n]) => s + n, 0);
  const reasons = parts.map(([r, n]) => `${r} ${n}`).join(', ');
  if (info.selection.mode === 'pinned') {
    const of = `of the ${info.selection.pinned} pinned ${info.selection.pinned === 1 ? 'item' : 'items'}`;
    return total === 0 ? `none ${of}` : `${total} ${of} (${reasons}); each listed with its hash in the receipt`;
  }
  if (total === 0) return 'none';
  const pinned = info.pinnedOmitted > 0 ? `; ${info.pinnedOmitted} pinned` : '';
  return `${total} (${reasons}${pinned}); each listed with its hash in the receipt`;
}

/**
 * The selection line of a pinned-only pack (null in mode `all`, where every item is a
 * candidate): `pinned items only — P of N items pinned (pin with "context.pins" in ctxpkg.json);
 * the other N−P are not in this block`.
 */
export function selectionLine(info: FrameInfo): string | null {
  const s = info.selection;
  if (s.mode !== 'pinned') return null;
  const rest = s.items - s.pinned;
  const restText = rest === 0 ? 'every installed item is pinned' : `the other ${rest} ${rest === 1 ? 'is' : 'are'} not in this block`;
  return `pinned items only — ${s.pinned} of ${s.items} ${s.items === 1 ? 'item' : 'items'} pinned (pin with "context.pins" in ctxpkg.json); ${restText}`;
}

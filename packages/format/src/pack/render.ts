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
  /** Extra header lines (e.g. the package index of an agent file), trusted text from ctxpkg. */
  notes: readonly string[];
}

export interface Renderer {
  format: PackFormat;
  frame(info: FrameInfo): { prefix: string; suffix: string };
  sectionHeader(section: SectionName): string;
  block(item: RenderItem): string;
  separator: string;
  /** A lower bound of the UTF-8 size of any block (lets the selection stop early). */
  minBlockBytes: number;
}

/** The omission summary sentence shared by renderers: `none` or `N (reason n, …; k pinned)`. */
export function omissionSummary(info: FrameInfo): string {
  const parts = Object.entries(info.omitted).filter(([, n]) => n > 0);
  const total = parts.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return 'none';
  const pinned = info.pinnedOmitted > 0 ? `; ${info.pinnedOmitted} pinned` : '';
  return `${total} (${parts.map(([r, n]) => `${r} ${n}`).join(', ')}${pinned}); each listed with its hash in the receipt`;
}

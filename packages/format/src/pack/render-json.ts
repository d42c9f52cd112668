/**
 * JSON rendering of a pack (spec/pack.md "JSON layout"): one object, keys in a fixed order,
 * one node object per line inside `"nodes":[…]` (in the output order of `compareOutput`: by
 * package, source file and heading path, as in Markdown), LF-terminated. No time is written.
 *
 * `{"format":"ctxpkg-pack-v2","title":…,"inputs":[…],"focus":…,
 *   "selection":{"mode":"all"|"pinned","items":n,"pinned":p,"not_selected":n-p|n-f|0,"text":…|null},
 *   (`n-f`: the items a focus does not select, focus.ts; `text` the Markdown selection line)
 *   "omitted":{"total":n,"by_reason":{…},"pinned":k,"among":"all"|"pinned","details":"receipt"|null},
 *   "notes":[…],"trust":…,"untrusted_banner":…,"nodes":[\n<node>,\n<node>\n],"untrusted_footer":…}`
 *
 * Node: `{"section","id","package","version","node","type","source":{"path","lines":[a,b],
 * "hash"},"scope","under","flags","disputed_with","content"}` (`source` members present when
 * known; `under` is the heading path, titles outermost first). Content gets the same escaping as
 * in Markdown (no hidden characters). Ids and hashes are here, not in the Markdown encoding.
 */
import { utf8Length } from './budget.js';
import { contentLowerBound, escapeContent } from './escape.js';
import { selectionLine, type FrameInfo, type RenderItem, type Renderer, type Frame } from './render.js';
import type { SectionRef } from './sections.js';
import { TRUST_LINE, UNTRUSTED_BANNER, UNTRUSTED_FOOTER } from './types.js';

/** Heading path titles, each cut to 80 characters. */
function under(sections: readonly SectionRef[]): string[] {
  return sections.map((s) => (s.title.length > 80 ? s.title.slice(0, 79) + '…' : s.title)).filter((t) => t !== '');
}

function block(item: RenderItem): string {
  const source: Record<string, unknown> = {};
  if (item.file_path !== undefined) source.path = item.file_path;
  if (item.line_start !== undefined) source.lines = [item.line_start, item.line_end ?? item.line_start];
  if (item.source !== undefined) source.hash = item.source;
  return JSON.stringify({
    section: item.section,
    id: item.id,
    package: item.package,
    version: item.version,
    node: item.local_id,
    type: item.type,
    source,
    scope: item.scope,
    under: under(item.sections),
    flags: item.flags,
    disputed_with: item.disputed_with,
    content: escapeContent(item.content),
  });
}

/** Bytes of the block of an item with empty strings, lists and source, per section name. */
const BASE = new Map<string, number>();
/** Lower bound of `block(item)` in bytes: JSON escaping only lengthens strings. */
function blockLowerBound(item: RenderItem): number {
  let base = BASE.get(item.section);
  if (base === undefined) {
    base = utf8Length(block({ id: '', package: '', version: '', local_id: '', type: '', content: '', scope: [], sections: [], seq: 0, flags: [], disputed_with: [], section: item.section }));
    BASE.set(item.section, base);
  }
  let n = base + item.id.length + item.package.length + item.version.length + item.local_id.length + item.type.length;
  if (item.file_path !== undefined) n += 9 + item.file_path.length; // "path":"…"
  for (const g of item.scope) n += g.length + 3; // "…",
  return n - (item.scope.length > 0 ? 1 : 0) + contentLowerBound(item.content);
}

function frame(info: FrameInfo): Frame {
  const total = Object.values(info.omitted).reduce((s, n) => s + n, 0);
  const head = {
    format: 'ctxpkg-pack-v2',
    title: info.title,
    inputs: info.inputs.map((i) => ({ package: i.package, version: i.version })),
    focus: info.focus ?? null,
    // In pinned-only mode the unpinned items, under a focus those it does not name, are not
    // selected (not omitted): `not_selected`.
    selection: {
      mode: info.selection.mode,
      items: info.selection.items,
      pinned: info.selection.pinned,
      not_selected: info.selection.mode === 'pinned' ? info.selection.items - info.selection.pinned : info.selection.focused !== undefined ? info.selection.items - info.selection.focused : 0,
      text: selectionLine(info),
    },
    omitted: { total, by_reason: info.omitted, pinned: info.pinnedOmitted, among: info.selection.mode, details: info.receipt ? 'receipt' : null },
    notes: info.notes,
    trust: TRUST_LINE,
    // Packages delivered as the project's own instructions (their nodes come first in "nodes").
    instructions: info.trusted,
    untrusted_banner: UNTRUSTED_BANNER,
  };
  const text = JSON.stringify(head);
  return {
    prefix: text.slice(0, -1) + ',"nodes":[\n',
    fenceOpen: '',
    fenceClose: '',
    suffix: `\n],"untrusted_footer":${JSON.stringify(UNTRUSTED_FOOTER)}}\n`,
  };
}

/** The JSON renderer. */
export const renderJson: Renderer = {
  format: 'json',
  frame,
  groups: () => [],
  block,
  blockLowerBound,
  separator: ',\n',
  // Fixed keys alone take more than 100 bytes.
  minBlockBytes: 100,
};

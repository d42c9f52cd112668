/**
 * Turning a screened node into a render item (shared by the pack compiler and the MCP answers).
 */
import { sectionOf } from './order.js';
import type { RenderItem } from './render.js';
import type { SectionRef } from './sections.js';
import type { Screened } from './screen.js';

/**
 * A render item for a screened node: `scope` from `computeScopes`, `sections` its heading path
 * (`sectionPathResolver`), `seq` its position among nodes on the same line (`sequenceResolver`).
 */
export function itemOf(s: Screened, scope: readonly string[] | undefined, sections: readonly SectionRef[], seq = 0): RenderItem {
  const n = s.node;
  const it: RenderItem = {
    id: n.id,
    package: n.package,
    version: n.version,
    local_id: n.local_id,
    type: n.type,
    content: n.content,
    scope: scope ?? [],
    sections,
    seq,
    flags: s.flags,
    disputed_with: s.flags.includes('disputed') ? s.disputedWith : [],
    section: sectionOf(n.type),
  };
  if (n.file_path !== undefined) it.file_path = n.file_path;
  if (n.line_start !== undefined) it.line_start = n.line_start;
  if (n.line_end !== undefined) it.line_end = n.line_end;
  if (n.source !== undefined) it.source = n.source;
  return it;
}


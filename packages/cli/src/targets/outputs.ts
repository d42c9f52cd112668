/**
 * What each enabled target writes for one delivery (spec/pack.md §11), computed from the target
 * modules' data — the same always-on text and the same rule-set texts for every target, each in
 * its agent's own files and frontmatter. Nothing is written here.
 *
 * - The always-on text goes to the target's always-on file (a block in AGENTS.md, CLAUDE.md,
 *   GEMINI.md, `.github/copilot-instructions.md`; a generated file for Cursor, Windsurf, Kiro and
 *   Cline) — except where the agent reads AGENTS.md itself and the `agents-md` target is on, so
 *   no agent gets it twice. An agent whose file may import AGENTS.md (`importsAgentsMd`: Claude
 *   Code, Gemini CLI) gets, with `agents-md` on, a block holding only the import line
 *   `@AGENTS.md` — what Claude Code's docs advise ("create a CLAUDE.md that imports it so both
 *   tools read the same instructions without duplicating them", code.claude.com/docs/en/memory)
 *   — instead of a second copy; none when the user's own text already imports it.
 * - Each rule set goes to one rule file per scoping target, with that agent's frontmatter.
 * Nothing is wanted when nothing is installed (no empty block after the last uninstall).
 */
import { join } from 'node:path';
import type { SyncTarget } from '@ctxpkg/format';
import { readTextIfExists } from '../fsutil.js';
import type { AgentTarget } from './agents/index.js';
import { findBlock, removeBlock } from './blocks.js';
import type { Delivery } from './delivery.js';

/** One file sync wants: a managed block inside a user file, or a whole generated file. */
export interface DesiredOutput {
  /** POSIX path relative to the project root. */
  path: string;
  target: SyncTarget;
  kind: 'block' | 'file';
  tier: 'always-on' | 'scoped';
  /** For `file`: the frontmatter before the block ('' for none). */
  head: string;
  body: string;
}

/** The line by which a file imports AGENTS.md (Claude Code, Gemini CLI `@path` imports). */
const IMPORTS_AGENTS_MD = /^[ \t]*@(\.\/)?AGENTS\.md[ \t]*\r?$/m;

/** The body of the block that imports AGENTS.md instead of copying its block. */
export const IMPORT_AGENTS_MD_BODY = '@AGENTS.md';

/** True when the user's own text in `text` (outside ctxpkg's block) imports AGENTS.md. */
function userImportsAgentsMd(text: string | undefined): boolean {
  if (text === undefined) return false;
  const st = findBlock(text);
  return IMPORTS_AGENTS_MD.test(st.kind === 'ok' ? removeBlock(text, st) : text);
}

/** The outputs of `targets` for `delivery` (`installed` false: none). `notes` gets why an always-on output is skipped. */
export function desiredOutputs(root: string, targets: readonly AgentTarget[], delivery: Delivery | undefined, notes: string[]): DesiredOutput[] {
  if (!delivery) return [];
  const out: DesiredOutput[] = [];
  const seen = new Set<string>();
  const agentsMdOn = targets.some((t) => t.id === 'agents-md');
  const deferred: string[] = [];
  for (const t of targets) {
    const a = t.alwaysOn;
    const importing = t.importsAgentsMd === true && agentsMdOn && a.kind === 'block';
    if (t.id !== 'agents-md' && t.readsAgentsMd && agentsMdOn) deferred.push(t.agent);
    else if (importing && userImportsAgentsMd(readTextIfExists(join(root, a.path)))) notes.push(`${a.path} imports AGENTS.md; no separate block written there`);
    else if (!seen.has(a.path)) {
      seen.add(a.path);
      out.push({ path: a.path, target: t.id, kind: a.kind, tier: 'always-on', head: a.kind === 'file' ? a.frontmatter : '', body: importing ? IMPORT_AGENTS_MD_BODY : delivery.alwaysOn.body });
    }
    if (!t.scoped) continue;
    for (const rs of delivery.ruleSets) {
      const path = rs.files.get(t.id) as string;
      if (seen.has(path)) continue;
      seen.add(path);
      out.push({ path, target: t.id, kind: 'file', tier: 'scoped', head: t.scoped.frontmatter(rs.patterns, rs.title, rs.description), body: rs.body });
    }
  }
  if (deferred.length > 0) notes.push(`${deferred.join(', ')} ${deferred.length === 1 ? 'reads AGENTS.md itself' : 'read AGENTS.md themselves'}: ${deferred.length === 1 ? 'its' : 'their'} always-on context is the AGENTS.md block`);
  return out;
}

/**
 * `.ctxpkg/pins.json`: the text each node pin delivered when it last resolved (written by sync),
 * so that when a publisher edits a pinned node — its id ends in a hash of its text and changes —
 * the successors of the broken pin are ranked by similarity to that text (spec/pack.md §2
 * "Pins"). Only ranking hints come from here, never delivered text: a missing, edited or
 * committed file only changes the order of the suggestions. `{ "format": "ctxpkg-pins-v1",
 * "texts": { "<pin>": "<content>" } }`, pins sorted.
 */
import { join } from 'node:path';
import type { MergedGraph } from '@ctxpkg/format';
import { readTextIfExists, writeFileAtomic } from '../fsutil.js';

export const PINS_RECORD = join('.ctxpkg', 'pins.json');
/** Longest text kept per pin (characters). */
const MAX_TEXT = 16 * 1024;

/** The recorded texts (empty when absent or not understood). */
export function readPinTexts(root: string): Map<string, string> {
  const text = readTextIfExists(join(root, PINS_RECORD));
  if (text === undefined) return new Map();
  try {
    const v = JSON.parse(text) as { format?: unknown; texts?: unknown };
    if (v.format !== 'ctxpkg-pins-v1' || typeof v.texts !== 'object' || v.texts === null) return new Map();
    return new Map(Object.entries(v.texts as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return new Map();
  }
}

/**
 * Record the text of every pin that names one node of `graph` now; keep the texts of pins that
 * do not resolve (they are the ones needed); drop pins no longer in `pins`. Writes only on change.
 */
export function recordPinTexts(root: string, pins: readonly string[], graph: Pick<MergedGraph, 'nodes'>): void {
  const before = readPinTexts(root);
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const next = new Map<string, string>();
  for (const pin of [...pins].sort()) {
    const n = byId.get(pin);
    if (n) next.set(pin, n.content.slice(0, MAX_TEXT));
    else if (before.has(pin)) next.set(pin, before.get(pin) as string);
  }
  if (next.size === before.size && [...next].every(([k, v]) => before.get(k) === v)) return;
  writeFileAtomic(join(root, PINS_RECORD), JSON.stringify({ format: 'ctxpkg-pins-v1', texts: Object.fromEntries(next) }, null, 2) + '\n');
}

/**
 * Choosing which candidates fit the byte budget (spec/pack.md "Budget"). Exact: every size is
 * the UTF-8 byte count of the piece the renderer will emit.
 *
 * size(selection) = frame(nb) + Σ header(s) over non-empty sections + Σ block sizes
 *                   + separator · (blocks − 1)
 * where `nb` is the number of non-pinned candidates left out (shown in the frame's omission
 * summary; the frame never grows when `nb` shrinks).
 *
 * 1. Pinned candidates are all taken. If `size(pinned only)` exceeds the budget the compiler
 *    refuses with `E_BUDGET` — a pack is never emitted without a pinned node.
 * 2. Section pass: the remaining bytes are split across the non-empty sections by weight
 *    (`splitBudget`: floor, then largest remainder, ties in section order). In each section, in
 *    the total order, a candidate is taken when its cost (block + separator + the section header
 *    if it opens the section) fits what is left of the section's share; otherwise it is skipped
 *    and the next one is tried.
 * 3. Pool pass: bytes left over anywhere are shared: all untaken candidates, in the total order,
 *    are taken while the exact size stays within the budget; repeated until nothing changes.
 */
import { CtxpkgError } from '../errors.js';
import { splitBudget } from './budget.js';
import { SECTIONS, type SectionName } from './types.js';

export interface SelectCandidate {
  section: SectionName;
  /** UTF-8 bytes of the rendered block. */
  size: number;
  pinned: boolean;
}

export interface SelectOptions {
  maxBytes: number;
  /** Bytes of the header of a section. */
  headerSize: (s: SectionName) => number;
  separatorSize: number;
  /** Bytes of prefix + suffix when `nb` non-pinned candidates are left out. */
  frameSize: (nb: number) => number;
  weights: Readonly<Record<SectionName, number>>;
}

/**
 * Select candidates (given in the total order). Returns a flag per candidate and the exact
 * total size. Throws `E_BUDGET` when the mandatory structure plus pinned nodes do not fit.
 */
export function selectWithinBudget(cands: readonly SelectCandidate[], o: SelectOptions): { selected: boolean[]; total: number } {
  const selected = cands.map((c) => c.pinned);
  const open = new Set<SectionName>();
  let blocks = 0;
  let nb = 0;
  let body = 0;
  for (const c of cands) {
    if (!c.pinned) {
      nb++;
      continue;
    }
    if (!open.has(c.section)) {
      open.add(c.section);
      body += o.headerSize(c.section);
    }
    body += c.size + (blocks > 0 ? o.separatorSize : 0);
    blocks++;
  }
  const frameMemo = new Map<number, number>();
  const frame = (n: number): number => {
    let v = frameMemo.get(n);
    if (v === undefined) {
      v = o.frameSize(n);
      frameMemo.set(n, v);
    }
    return v;
  };
  const required = frame(nb) + body;
  if (required > o.maxBytes) {
    throw new CtxpkgError('E_BUDGET', `the pack's mandatory structure and pinned nodes need ${required} bytes, more than the budget of ${o.maxBytes}`, {
      hint: `raise the budget to at least ${required} bytes, or unpin nodes ("context.pins" in ctxpkg.json)`,
      details: { required_bytes: required, max_bytes: o.maxBytes },
    });
  }
  let total = required;
  const cost = (c: SelectCandidate): number => c.size + (blocks > 0 ? o.separatorSize : 0) + (open.has(c.section) ? 0 : o.headerSize(c.section));
  const take = (i: number, c: SelectCandidate, bytes: number): void => {
    selected[i] = true;
    open.add(c.section);
    blocks++;
    total += bytes + frame(nb - 1) - frame(nb);
    nb--;
  };

  // 2. Section pass.
  const present = SECTIONS.filter((s) => s !== 'pinned' && cands.some((c) => !c.pinned && c.section === s));
  if (present.length > 0) {
    const shares = splitBudget(o.maxBytes - total, present.map((s) => [s, o.weights[s] ?? 0] as const));
    for (const s of present) {
      let left = shares.get(s) as number;
      cands.forEach((c, i) => {
        if (selected[i] || c.section !== s) return;
        const bytes = cost(c);
        if (bytes <= left && total + bytes + frame(nb - 1) - frame(nb) <= o.maxBytes) {
          left -= bytes;
          take(i, c, bytes);
        }
      });
    }
  }

  // 3. Pool pass, until a fixed point.
  for (let changed = true; changed; ) {
    changed = false;
    cands.forEach((c, i) => {
      if (selected[i]) return;
      const bytes = cost(c);
      if (total + bytes + frame(nb - 1) - frame(nb) <= o.maxBytes) {
        take(i, c, bytes);
        changed = true;
      }
    });
  }
  return { selected, total };
}

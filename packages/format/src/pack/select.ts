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
 * A pass stops early once the bytes left (plus what the frame could still shrink) are fewer than
 * `minBlockBytes` (no further candidate could fit), or after `MISS_LIMIT` consecutive candidates
 * that did not fit (so a large graph is not rendered node by node to fill the last few bytes).
 */

/** Consecutive candidates that did not fit after which a pass stops looking. */
export const MISS_LIMIT = 256;
import { CtxpkgError } from '../errors.js';
import { splitBudget } from './budget.js';
import { SECTIONS, type SectionName } from './types.js';

/** The candidates, in the total order, as accessors (no per-candidate objects for large graphs). */
export interface SelectCandidates {
  count: number;
  sectionAt(i: number): SectionName;
  pinnedAt(i: number): boolean;
  /** UTF-8 bytes of the rendered block (called lazily, at most once per candidate). */
  sizeAt(i: number): number;
}

export interface SelectOptions {
  maxBytes: number;
  /** Bytes of the header of a section. */
  headerSize: (s: SectionName) => number;
  separatorSize: number;
  /** Bytes of prefix + suffix when `nb` non-pinned candidates are left out. */
  frameSize: (nb: number) => number;
  weights: Readonly<Record<SectionName, number>>;
  /**
   * A lower bound of every block's size. Scanning stops once fewer bytes than this are left
   * (counting what the frame could still shrink), so large graphs render only what can fit.
   */
  minBlockBytes: number;
}

/**
 * Select candidates (given in the total order). Returns a flag per candidate and the exact
 * total size. Throws `E_BUDGET` when the mandatory structure plus pinned nodes do not fit.
 */
export function selectWithinBudget(cands: SelectCandidates, o: SelectOptions): { selected: Uint8Array; total: number } {
  const n = cands.count;
  const selected = new Uint8Array(n);
  const sizes = new Int32Array(n).fill(-1);
  const sizeOf = (i: number): number => {
    let v = sizes[i] as number;
    if (v < 0) {
      v = cands.sizeAt(i);
      sizes[i] = v;
    }
    return v;
  };
  const open = new Set<SectionName>();
  let blocks = 0;
  let nb = 0;
  let body = 0;
  for (let i = 0; i < n; i++) {
    if (!cands.pinnedAt(i)) {
      nb++;
      continue;
    }
    selected[i] = 1;
    const section = cands.sectionAt(i);
    if (!open.has(section)) {
      open.add(section);
      body += o.headerSize(section);
    }
    body += sizeOf(i) + (blocks > 0 ? o.separatorSize : 0);
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
  const cost = (i: number): number => {
    const section = cands.sectionAt(i);
    return sizeOf(i) + (blocks > 0 ? o.separatorSize : 0) + (open.has(section) ? 0 : o.headerSize(section));
  };
  const take = (i: number, bytes: number): void => {
    selected[i] = 1;
    open.add(cands.sectionAt(i));
    blocks++;
    total += bytes + frame(nb - 1) - frame(nb);
    nb--;
  };
  /** Nothing more can fit: fewer bytes left than any block, even if the frame shrank fully. */
  const exhausted = (): boolean => o.maxBytes - total + (frame(nb) - frame(0)) < o.minBlockBytes;

  // 2. Section pass.
  const bySection = new Map<SectionName, number[]>();
  for (let i = 0; i < n; i++) {
    if (selected[i]) continue;
    const section = cands.sectionAt(i);
    const l = bySection.get(section);
    if (l) l.push(i);
    else bySection.set(section, [i]);
  }
  const present = SECTIONS.filter((s) => bySection.has(s));
  if (present.length > 0) {
    const shares = splitBudget(o.maxBytes - total, present.map((s) => [s, o.weights[s] ?? 0] as const));
    for (const s of present) {
      let left = shares.get(s) as number;
      let misses = 0;
      for (const i of bySection.get(s) as number[]) {
        if (left < o.minBlockBytes || misses >= MISS_LIMIT || exhausted()) break;
        const bytes = cost(i);
        if (bytes <= left && total + bytes + frame(nb - 1) - frame(nb) <= o.maxBytes) {
          left -= bytes;
          take(i, bytes);
          misses = 0;
        } else {
          misses++;
        }
      }
    }
  }

  // 3. Pool pass, until a fixed point.
  for (let changed = true; changed; ) {
    changed = false;
    let misses = 0;
    for (let i = 0; i < n; i++) {
      if (selected[i]) continue;
      if (misses >= MISS_LIMIT || exhausted()) break;
      const bytes = cost(i);
      if (total + bytes + frame(nb - 1) - frame(nb) <= o.maxBytes) {
        take(i, bytes);
        changed = true;
        misses = 0;
      } else {
        misses++;
      }
    }
  }
  return { selected, total };
}

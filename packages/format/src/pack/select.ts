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
 *
 * Candidates are handles; each section's non-pinned candidates come as a sequence in the total
 * order that may be produced lazily (`LazyOrder`), and the pool pass walks the total order by
 * merging the section sequences — so only the candidates a pass actually reaches are ordered,
 * rendered and measured.
 */

/** Consecutive candidates that did not fit after which a pass stops looking. */
export const MISS_LIMIT = 256;
import { CtxpkgError } from '../errors.js';
import { splitBudget } from './budget.js';
import { SECTIONS, type SectionName } from './types.js';

/** Handles of one section in the total order: `at(k)` is the k-th (-1 past the end). */
export interface OrderedSequence {
  readonly length: number;
  at(k: number): number;
}

/** The candidates as handles `0 … count-1` (no per-candidate objects for large graphs). */
export interface SelectCandidates {
  count: number;
  /** The pinned candidates, in the total order. */
  pinned: readonly number[];
  /** The non-pinned candidates of each section (`pinned` excluded), each in the total order. */
  sections: ReadonlyMap<SectionName, OrderedSequence>;
  /** The total order (negative: `a` first); merges the sections in the pool pass. */
  compare(a: number, b: number): number;
  sectionOf(h: number): SectionName;
  /** UTF-8 bytes of the rendered block (called lazily, at most once per candidate). */
  sizeAt(h: number): number;
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
 * Select candidates. Returns a flag per handle and the exact total size in bytes. Throws
 * `E_BUDGET` when the mandatory structure plus pinned nodes do not fit.
 */
export function selectWithinBudget(cands: SelectCandidates, o: SelectOptions): { selected: Uint8Array; total: number } {
  const selected = new Uint8Array(cands.count);
  const sizes = new Int32Array(cands.count).fill(-1);
  const sizeOf = (h: number): number => {
    let v = sizes[h] as number;
    if (v < 0) {
      v = cands.sizeAt(h);
      sizes[h] = v;
    }
    return v;
  };
  const open = new Set<SectionName>();
  let blocks = 0;
  let body = 0;
  for (const h of cands.pinned) {
    selected[h] = 1;
    const section = cands.sectionOf(h);
    if (!open.has(section)) {
      open.add(section);
      body += o.headerSize(section);
    }
    body += sizeOf(h) + (blocks > 0 ? o.separatorSize : 0);
    blocks++;
  }
  let nb = cands.count - cands.pinned.length;
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
  const cost = (h: number): number => {
    const section = cands.sectionOf(h);
    return sizeOf(h) + (blocks > 0 ? o.separatorSize : 0) + (open.has(section) ? 0 : o.headerSize(section));
  };
  const take = (h: number, bytes: number): void => {
    selected[h] = 1;
    open.add(cands.sectionOf(h));
    blocks++;
    total += bytes + frame(nb - 1) - frame(nb);
    nb--;
  };
  /** Nothing more can fit: fewer bytes left than any block, even if the frame shrank fully. */
  const exhausted = (): boolean => o.maxBytes - total + (frame(nb) - frame(0)) < o.minBlockBytes;

  // 2. Section pass.
  const present = SECTIONS.filter((s) => (cands.sections.get(s)?.length ?? 0) > 0);
  if (present.length > 0) {
    const shares = splitBudget(o.maxBytes - total, present.map((s) => [s, o.weights[s] ?? 0] as const));
    for (const s of present) {
      const seq = cands.sections.get(s) as OrderedSequence;
      let left = shares.get(s) as number;
      let misses = 0;
      for (let k = 0, h = seq.at(0); h >= 0; h = seq.at(++k)) {
        if (left < o.minBlockBytes || misses >= MISS_LIMIT || exhausted()) break;
        const bytes = cost(h);
        if (bytes <= left && total + bytes + frame(nb - 1) - frame(nb) <= o.maxBytes) {
          left -= bytes;
          take(h, bytes);
          misses = 0;
        } else {
          misses++;
        }
      }
    }
  }

  // 3. Pool pass over the total order (the sections merged), until a fixed point.
  const seqs = present.map((s) => cands.sections.get(s) as OrderedSequence);
  for (let changed = true; changed; ) {
    changed = false;
    let misses = 0;
    const cursor = seqs.map(() => 0);
    for (;;) {
      let best = -1;
      let from = -1;
      for (let i = 0; i < seqs.length; i++) {
        const h = (seqs[i] as OrderedSequence).at(cursor[i] as number);
        if (h >= 0 && (best < 0 || cands.compare(h, best) < 0)) {
          best = h;
          from = i;
        }
      }
      if (best < 0) break;
      cursor[from]++;
      if (selected[best]) continue;
      if (misses >= MISS_LIMIT || exhausted()) break;
      const bytes = cost(best);
      if (total + bytes + frame(nb - 1) - frame(nb) <= o.maxBytes) {
        take(best, bytes);
        changed = true;
        misses = 0;
      } else {
        misses++;
      }
    }
  }
  return { selected, total };
}

/**
 * The solver's decision order as a binary heap with lazy invalidation: among the packages that
 * must be selected but are undecided, the best is the one seen in most conflicts, then with the
 * fewest allowed versions, then with the smallest name (a total order, so the choice is
 * deterministic). Updating an entry pushes a new one and marks the old one stale.
 */
interface Entry {
  name: string;
  score: number;
  count: number;
  stamp: number;
}

function better(a: Entry, b: Entry): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.count !== b.count) return a.count < b.count;
  return a.name < b.name;
}

export class DecisionQueue {
  private readonly heap: Entry[] = [];
  /** name → stamp of its live entry (absent: not queued). */
  private readonly live = new Map<string, number>();
  private readonly counts = new Map<string, number>();
  private readonly scores = new Map<string, number>();
  private nextStamp = 0;

  /** `name` is pending with `count` allowed versions, or (null) no longer pending. */
  setPending(name: string, count: number | null): void {
    if (count === null) {
      this.live.delete(name);
      this.counts.delete(name);
      return;
    }
    this.counts.set(name, count);
    this.enqueue(name);
  }

  /** Record that `name` took part in a conflict. */
  bump(name: string): void {
    this.scores.set(name, (this.scores.get(name) ?? 0) + 1);
    if (this.live.has(name)) this.enqueue(name);
  }

  /** The best pending package, or null; it stays queued. */
  peek(): string | null {
    while (this.heap.length > 0) {
      const top = this.heap[0]!;
      if (this.live.get(top.name) === top.stamp) return top.name;
      this.pop();
    }
    return null;
  }

  private enqueue(name: string): void {
    const e: Entry = { name, score: this.scores.get(name) ?? 0, count: this.counts.get(name)!, stamp: this.nextStamp++ };
    this.live.set(name, e.stamp);
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!better(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && better(h[l]!, h[m]!)) m = l;
      if (r < h.length && better(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

import { describe, expect, it } from 'vitest';
import type { ContextEdge, ContextGraph, ContextNode } from '@ctxpkg/format';
import { clusterOf, focusOf, layoutGraph, MAX_CLUSTERS, MAX_DOTS, MAX_EDGE_LINES, NODE_LIMIT, shortText } from './graph-layout.js';
import { middle } from './graph-page.js';

const node = (id: string, type: string, content: string, file = 'H.md', line = 1): ContextNode => ({ id, type, content, activation: 1, file_path: file, line_start: line });
const contains = (from: string, to: string): ContextEdge => ({ from, to, type: 'contains', weight: 1 });

/** A handbook: root section, `sections` sections of `per` items each, plus a few references. */
function handbook(sections: number, per: number, file = 'H.md'): ContextGraph {
  const nodes: ContextNode[] = [node(file, 'section', 'Handbook', file)];
  const edges: ContextEdge[] = [];
  let line = 2;
  for (let s = 0; s < sections; s++) {
    const sid = `${file}:s${s}`;
    nodes.push(node(sid, 'section', `Section ${s}`, file, line++));
    edges.push(contains(file, sid));
    for (let b = 0; b < per; b++) {
      const id = `${sid}~${(s * 1000 + b).toString(16).padStart(8, '0')}`;
      nodes.push(node(id, ['fact', 'gotcha', 'convention'][b % 3], `Item ${s}.${b}`, file, line++));
      edges.push(contains(sid, id));
      if (b === 0 && s > 0) edges.push({ from: id, to: `${file}:s${s - 1}`, type: 'references', weight: 1 });
    }
  }
  return { format: 'ctxpkg-graph-v2', nodes, edges };
}

describe('layoutGraph', () => {
  it('draws a small graph node by node, deterministically, sections top to bottom in source order', () => {
    const g = handbook(3, 4);
    const a = layoutGraph(g)!;
    expect(a.mode).toBe('nodes');
    expect(a.nodes).toHaveLength(g.nodes.length);
    expect(a.edges).toHaveLength(g.edges.length);
    expect(JSON.stringify(layoutGraph(g))).toBe(JSON.stringify(a));
    const y = (id: string) => a.nodes.find((n) => n.id === id)!.y;
    expect(y('H.md:s0')).toBeLessThan(y('H.md:s1'));
    expect(y('H.md:s1')).toBeLessThan(y('H.md:s2'));
    for (const n of a.nodes) expect(Number.isInteger(n.x) && Number.isInteger(n.y)).toBe(true);
    expect(a.width).toBeGreaterThan(0);
  });

  it('clusters a 1,000-node graph by top-level section on a grid in one band per file: every node one dot exactly once, nothing overlaps', () => {
    const g = handbook(40, 24);
    expect(g.nodes.length).toBeGreaterThan(NODE_LIMIT);
    const pic = layoutGraph(g)!;
    expect(pic.mode).toBe('clusters');
    expect(pic.clusters).toHaveLength(41);
    expect(pic.clusters[0]).toMatchObject({ key: 'f:H.md', title: 'Top level', size: 1 });
    expect(pic.clusters.slice(1).map((c) => c.title)).toEqual(Array.from({ length: 40 }, (_, i) => `Section ${i}`));
    expect(pic.bands).toEqual([expect.objectContaining({ title: 'H.md', count: g.nodes.length })]);
    const dots = pic.clusters.flatMap((c) => c.dots.map((d) => d.id)).sort();
    expect(dots).toEqual(g.nodes.map((n) => n.id).sort());
    // Membership is the layout: contains edges inside the file are not drawn; references are, merged per pair.
    expect(pic.edges.filter((e) => e.type === 'contains')).toEqual([]);
    expect(pic.edges.filter((e) => e.type === 'references')).toHaveLength(39);
    expect(pic.width).toBeLessThanOrEqual(1140);
    expect(pic.height).toBeLessThan(1500);
    const band = pic.bands[0];
    for (const c of pic.clusters) {
      for (const d of c.dots) {
        expect(d.x).toBeGreaterThanOrEqual(c.x);
        expect(d.x + 10).toBeLessThanOrEqual(c.x + c.w);
        expect(d.y + 10).toBeLessThanOrEqual(c.y + c.h);
      }
      expect(c.x >= band.x && c.y >= band.y && c.x + c.w <= band.x + band.w && c.y + c.h <= band.y + band.h).toBe(true);
      for (const o of pic.clusters) if (o !== c) expect(c.x + c.w <= o.x || o.x + o.w <= c.x || c.y + c.h <= o.y || o.y + o.h <= c.y).toBe(true);
    }
    expect(JSON.stringify(layoutGraph(g))).toBe(JSON.stringify(pic));
  });

  it('focus draws one group node by node; unknown focus is null; focusOf names the group', () => {
    const g = handbook(40, 24);
    const key = focusOf(g, 'H.md:s3~00000bb8')!;
    expect(key).toBe('s:H.md:s3');
    const pic = layoutGraph(g, key)!;
    expect(pic.mode).toBe('nodes');
    expect(pic.nodes.map((n) => n.id)).toContain('H.md:s3~00000bb8');
    expect(pic.nodes).toHaveLength(25);
    expect(layoutGraph(g, 's:nope')).toBeNull();
    expect(focusOf(handbook(2, 2), 'H.md')).toBeUndefined();
  });

  it('bounds a hostile graph: one group for the files past MAX_CLUSTERS, at most MAX_DOTS squares, at most MAX_EDGE_LINES lines', () => {
    const nodes: ContextNode[] = Array.from({ length: 3_000 }, (_, i) => node(`n${i}`, 'fact', `x${i}`, `f${String(i).padStart(4, '0')}.md`));
    const edges: ContextEdge[] = nodes.slice(1).map((n, i) => ({ from: `n${i}`, to: n.id, type: 'relates_to', weight: 1 }));
    const pic = layoutGraph({ format: 'ctxpkg-graph-v2', nodes, edges })!;
    expect(pic.clusters).toHaveLength(MAX_CLUSTERS);
    expect(pic.clusters[MAX_CLUSTERS - 1]).toMatchObject({ key: 'f:*', size: 3_000 - (MAX_CLUSTERS - 1) });
    expect(pic.bands[MAX_CLUSTERS - 1].title).toBe(`${3_000 - (MAX_CLUSTERS - 1)} more files`);
    expect(pic.clusters.reduce((n, c) => n + c.dots.length, 0)).toBeLessThanOrEqual(MAX_DOTS + MAX_CLUSTERS);
    expect(pic.edges.length).toBeLessThanOrEqual(MAX_EDGE_LINES);
    expect(pic.edgesOmitted + pic.edges.reduce((n, e) => n + e.count, 0)).toBe(MAX_CLUSTERS - 1);
  });

  it('falls back to one group per file past MAX_CLUSTERS groups', () => {
    const files = Array.from({ length: 3 }, (_, i) => handbook(60, 1, `F${i}.md`));
    const g: ContextGraph = { format: 'ctxpkg-graph-v2', nodes: files.flatMap((f) => f.nodes), edges: files.flatMap((f) => f.edges) };
    expect(clusterOf(g).info.size).toBeGreaterThan(MAX_CLUSTERS);
    const pic = layoutGraph(g)!;
    expect(pic.clusters.map((c) => c.key)).toEqual(['f:F0.md', 'f:F1.md', 'f:F2.md']);
    expect(pic.bands.map((b) => b.title)).toEqual(['F0.md', 'F1.md', 'F2.md']);
    expect(focusOf(g, 'F1.md:s5')).toBe('f:F1.md');
  });
});

describe('helpers', () => {
  it('shortText cuts by characters with an ellipsis and one line', () => {
    expect(shortText('a\n b', 10)).toBe('a b');
    expect(shortText('abcdefghij', 5)).toBe('abcd…');
    expect(shortText('😀😀😀', 2)).toBe('😀…');
  });
  it('middle is halfway along the polyline', () => {
    expect(middle([{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 10, y: 30 }])).toEqual({ x: 10, y: 10 });
    expect(middle([])).toEqual({ x: 0, y: 0 });
  });
});

import { describe, expect, it } from 'vitest';
import { decodeContent } from '../content.js';
import { CONTEXT_EDGE, CONTEXT_NODE } from './content-tables.js';
import { decodeStruct, INVALID, newDecodeContext } from './decode.js';

const edge = () => ({ from: 'a', to: 'b', type: 'supports', weight: 0.5, coactivations: 2 });

describe('decodeStruct on a writer model (copy on write)', () => {
  it('returns an object that is already its model as is, and copies one that is not, leaving the source untouched', () => {
    const ctx = newDecodeContext('E_CONTENT', true);
    const e = edge();
    expect(decodeStruct(CONTEXT_EDGE, e, ctx, 'e')).toBe(e);
    const partial = { from: 'a', to: 'b', type: 'supports' };
    const d = decodeStruct(CONTEXT_EDGE, partial, ctx, 'e');
    expect(d).toStrictEqual({ from: 'a', to: 'b', type: 'supports', weight: 1, coactivations: 0 });
    expect(partial).toStrictEqual({ from: 'a', to: 'b', type: 'supports' });
    const node = { id: 'n', type: 't', content: 'c', created_at: '2026-01-01T00:00:00.000Z', category: null, source: undefined };
    const before = { ...node };
    const dn = decodeStruct(CONTEXT_NODE, node, ctx, 'n');
    expect(dn).toStrictEqual({ id: 'n', type: 't', content: 'c', created_at: '2026-01-01T00:00:00Z', activation: 1 });
    expect(Object.keys(dn as object)).not.toContain('category');
    expect(Object.keys(dn as object)).not.toContain('source');
    expect(node).toStrictEqual(before);
    expect(ctx.issues).toEqual([]);
  });

  it('keeps a known field the source holds as non-enumerable, and reads no inherited one', () => {
    const ctx = newDecodeContext('E_CONTENT', true);
    const withHidden = Object.defineProperty({ to: 'b', type: 't', weight: 0.5 } as Record<string, unknown>, 'from', { value: 'a', enumerable: false });
    const dw = decodeStruct(CONTEXT_EDGE, withHidden, ctx, 'e') as Record<string, unknown>;
    expect(dw.from).toBe('a');
    expect(dw.coactivations).toBe(0);
    const proto = Object.create({ category: 'inherited' }) as Record<string, unknown>;
    Object.assign(proto, { id: 'n', type: 't', content: 'c', activation: 1 });
    const dp = decodeStruct(CONTEXT_NODE, proto, ctx, 'n') as Record<string, unknown>;
    expect(dp.category).toBeUndefined();
  });

  it('decodeContent reports the same problems and copies containers', () => {
    const nodes = [{ id: 'a', type: 't', content: 'x', activation: 0.5 }];
    const raw = { context_graph: { format: 'ctxpkg-graph-v2', nodes, edges: [edge()] } };
    const dc = decodeContent(raw, true);
    expect(dc.issues).toEqual([]);
    expect(dc.content!.context_graph!.nodes).not.toBe(nodes);
    expect(dc.content!.context_graph!.nodes[0]).toBe(nodes[0]);
    const bad = decodeContent({ context_graph: { format: 'ctxpkg-graph-v2', nodes: [{ id: 'a', type: 't', content: 'x', extra: 1 }], edges: [] } }, true);
    expect(bad.content).toBeUndefined();
    expect(bad.issues.map((i) => i.path)).toEqual(['content.context_graph.nodes[0].extra']);
  });
});

/**
 * `checkMergedGraph` (graph-check.ts) against the rule as first written — every node's fields in
 * order, then its id against a set of those before it — on graphs with random defects: the same
 * verdict and the same first problem, whether the ids come sorted (checked by neighbours) or not
 * (checked by a set), and whether a duplicate id comes before or after a bad field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CtxpkgError } from '../errors.js';
import { checkMergedGraph } from './graph-check.js';

const isStr = (v: unknown): boolean => typeof v === 'string';
/** The node rule as first written (fields by a key from a list; ids in a set). */
function byRule(nodes: unknown[]): string | undefined {
  const ids = new Set<string>();
  for (let k = 0; k < nodes.length; k++) {
    const n = nodes[k] as Record<string, unknown>;
    if (typeof n !== 'object' || n === null || Array.isArray(n)) return `nodes[${k}] is not an object`;
    for (const f of ['id', 'type', 'content', 'package', 'version', 'local_id']) if (!isStr(n[f])) return `nodes[${k}].${f} must be a string`;
    if (typeof n.activation !== 'number') return `nodes[${k}].activation must be a number`;
    for (const f of ['category', 'source', 'created_at', 'file_path', 'supersedes']) if (n[f] !== undefined && !isStr(n[f])) return `nodes[${k}].${f} must be a string`;
    for (const f of ['line_start', 'line_end', 'decay_half_life_days']) if (n[f] !== undefined && !(Number.isSafeInteger(n[f]) && (n[f] as number) >= 0)) return `nodes[${k}].${f} must be a non-negative integer`;
    if (n.superseded_by !== undefined && (!Array.isArray(n.superseded_by) || !n.superseded_by.every(isStr))) return `nodes[${k}].superseded_by must be an array of ids`;
    if (n.disputed !== undefined && typeof n.disputed !== 'boolean') return `nodes[${k}].disputed must be a boolean`;
    if (ids.has(n.id as string)) return `duplicate node id ${JSON.stringify(n.id)}`;
    ids.add(n.id as string);
  }
  return undefined;
}

const node = (id: string): Record<string, unknown> => ({ id, type: 'fact', content: 'c', activation: 1, package: '@a/b', version: '1.0.0', local_id: id.slice(5), category: 'x', file_path: 'A.md', line_start: 1, line_end: 2 });
const FIELDS = ['id', 'type', 'content', 'package', 'version', 'local_id', 'activation', 'category', 'source', 'created_at', 'file_path', 'supersedes', 'line_start', 'line_end', 'decay_half_life_days', 'superseded_by', 'disputed'];
const BAD: unknown[] = [undefined, null, 7, -1, 1.5, 'x', true, [], ['a', 1], {}];

/** A graph of `count` nodes with ids `@a/b#n000…` (sorted unless shuffled), and defects applied. */
const graphs = fc.record({
  count: fc.integer({ min: 0, max: 30 }),
  shuffle: fc.boolean(),
  seed: fc.integer({ min: 0, max: 1000 }),
  defects: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...FIELDS, '<dup>', '<not-object>'), fc.constantFrom(...BAD)), { maxLength: 3 }),
});

function build({ count, shuffle, seed, defects }: { count: number; shuffle: boolean; seed: number; defects: Array<[number, string, unknown]> }): unknown[] {
  const nodes: unknown[] = Array.from({ length: count }, (_, i) => node(`@a/b#n${String(i).padStart(3, '0')}`));
  if (shuffle) for (let i = nodes.length - 1; i > 0; i--) { const j = (seed * 31 + i * 17) % (i + 1); [nodes[i], nodes[j]] = [nodes[j], nodes[i]]; }
  for (const [at, field, value] of defects) {
    if (nodes.length === 0) break;
    const k = at % nodes.length;
    if (field === '<not-object>') nodes[k] = value === undefined ? null : typeof value === 'object' ? value : 'n';
    else if (field === '<dup>') { const other = nodes[(k + 1 + (seed % nodes.length)) % nodes.length] as Record<string, unknown> | null; if (other && typeof other === 'object' && !Array.isArray(other)) nodes[k] = { ...node('x'), id: other.id }; }
    else if (nodes[k] && typeof nodes[k] === 'object' && !Array.isArray(nodes[k])) (nodes[k] as Record<string, unknown>)[field] = value;
  }
  return nodes;
}

function verdict(nodes: unknown[]): string | undefined {
  try {
    checkMergedGraph({ format: 'ctxpkg-merged-v1', inputs: [], nodes, edges: [] });
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(CtxpkgError);
    expect((e as CtxpkgError).code).toBe('E_STRUCTURE');
    return (e as Error).message.replace(/^merged graph: /, '');
  }
}

describe('checkMergedGraph', () => {
  it('finds the first problem the rule finds, sorted ids or not, duplicates before or after a bad field', () => {
    fc.assert(
      fc.property(graphs, (g) => {
        const nodes = build(g);
        expect(verdict(nodes)).toBe(byRule(nodes));
      }),
      { numRuns: 3000 },
    );
  });

  it('takes sorted unique ids, and refuses a duplicate in a sorted graph and in an unsorted one', () => {
    const ids = ['@a/b#1', '@a/b#2', '@a/b#3'];
    expect(verdict(ids.map(node))).toBeUndefined();
    expect(verdict(['@a/b#1', '@a/b#2', '@a/b#2'].map(node))).toBe('duplicate node id "@a/b#2"');
    expect(verdict(['@a/b#3', '@a/b#1', '@a/b#3'].map(node))).toBe('duplicate node id "@a/b#3"');
    // A duplicate before a bad field is named, one after it is not.
    expect(verdict([node('@a/b#1'), node('@a/b#1'), { ...node('@a/b#2'), type: 1 }])).toBe('duplicate node id "@a/b#1"');
    expect(verdict([node('@a/b#1'), { ...node('@a/b#2'), type: 1 }, node('@a/b#1')])).toBe('nodes[1].type must be a string');
  });
});

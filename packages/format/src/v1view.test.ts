import { describe, expect, it } from 'vitest';
import type { PackageContent } from './content.js';
import { toGraphView } from './v1view.js';
import { goldenContent } from './__tests__/fixtures.js';

const T = '2026-01-02T03:04:05Z';

describe('toGraphView (v2 spec §9)', () => {
  it('returns context_graph for v2 content: own arrays, shared (read-only) node objects', () => {
    const c = goldenContent();
    const g = toGraphView(c);
    expect(g).toEqual(c.context_graph);
    g.nodes.pop();
    expect(c.context_graph!.nodes).toHaveLength(3);
    expect(g.nodes[0]).toBe(c.context_graph!.nodes[0]);
  });

  it('maps every v1 layer to nodes with activation 1.0, deterministic unique ids', () => {
    const fact = (key: string, value: string) => ({ category: 'arch', key, value, source_session: 's1', confidence: 0.8, created_at: T, last_confirmed: T });
    const content: PackageContent = {
      knowledge: {
        facts: [fact('db', 'postgres'), fact('db', 'postgres 16')],
        patterns: [{ pattern_type: 'naming', description: 'kebab files', examples: [], source_session: 's1', created_at: T }],
        insights: [{ summary: 'cache first', from_sessions: ['s1'], timestamp: T }],
        exported_at: T,
      },
      graph: {
        nodes: [
          { kind: 'function', name: 'main', file_path: 'src/main.rs', line_start: 1, line_end: 9 },
          { kind: 'function', name: 'run', file_path: 'src/run.rs' },
        ],
        edges: [
          { source_path: 'src/main.rs', source_name: 'main', target_path: 'src/run.rs', target_name: 'run', kind: 'calls', metadata: 'm' },
          { source_path: 'src/main.rs', source_name: 'main', target_path: 'nowhere', target_name: 'x', kind: 'calls' },
        ],
        exported_at: T,
      },
      session: { task_description: 'fix auth', findings: [{ summary: 'race', file: 'a.rs', line: 3 }], decisions: [{ summary: 'mutex', rationale: 'simple' }], next_steps: ['test'], files_touched: ['a.rs'], exported_at: T },
      patterns: { patterns: [{ pattern_type: 'errors', description: 'use thiserror', examples: ['x'], source_session: 's2', created_at: T }], exported_at: T },
      gotchas: { gotchas: [{ id: 'g1', category: 'security', severity: 'critical', trigger: 'token', resolution: 'rotate', confidence: 0.7 }], exported_at: T },
    };
    const g = toGraphView(content);
    expect(g.format).toBe('ctxpkg-graph-v2');
    expect(g.nodes.map((n) => `${n.id}|${n.type}`)).toEqual([
      'fact:arch/db|fact',
      'fact:arch/db~2|fact',
      'pattern:1|pattern',
      'pattern:2|pattern',
      'insight:1|insight',
      'code:src/main.rs#main|code_function',
      'code:src/run.rs#run|code_function',
      'session|session',
      'gotcha:g1|gotcha',
    ]);
    expect(g.nodes.every((n) => n.activation === 1)).toBe(true);
    expect(g.nodes[0]).toMatchObject({ content: 'postgres', category: 'arch', source: 's1', confidence: 0.8, created_at: T });
    expect(g.nodes[5]).toMatchObject({ file_path: 'src/main.rs', line_start: 1, line_end: 9, category: 'function' });
    expect(g.nodes[7]!.content).toBe('task: fix auth\nfindings:\n- race (a.rs:3)\ndecisions:\n- mutex (rationale: simple)\nnext steps:\n- test\nfiles touched:\n- a.rs');
    expect(g.nodes[8]!.content).toBe('token\n---\nrotate');
    expect(g.edges).toEqual([{ from: 'code:src/main.rs#main', to: 'code:src/run.rs#run', type: 'calls', weight: 1, metadata: 'm' }]);
    expect(toGraphView(content)).toEqual(g);
  });

  it('an addon or empty package is an empty graph', () => {
    expect(toGraphView({ addon: { manifest_toml: 'x' } })).toEqual({ format: 'ctxpkg-graph-v2', nodes: [], edges: [] });
  });
});

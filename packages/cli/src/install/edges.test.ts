import { describe, expect, it } from 'vitest';
import { checkEdges, edgeProblem, type EdgeSubject } from './edges.js';

const pkg = (dependencies: Record<string, string>, manifest: EdgeSubject['manifestDependencies']): EdgeSubject => ({
  name: '@acme/app',
  version: '1.0.0',
  dependencies,
  manifestDependencies: manifest,
});
const req = (name: string, version_req: string, optional = false) => ({ name, version_req, optional });

describe('recorded edges against the verified manifest', () => {
  it('accepts edges that the manifest declares and whose versions satisfy it; optional ones may be absent', () => {
    expect(edgeProblem(pkg({ '@acme/base': '1.2.0' }, [req('@acme/base', '^1.0.0'), req('@acme/extra', '^2', true)]))).toBeUndefined();
    expect(edgeProblem(pkg({ '@acme/base': '1.2.0', '@acme/extra': '2.1.0' }, [req('@acme/base', '^1.0.0'), req('@acme/extra', '^2', true)]))).toBeUndefined();
    expect(edgeProblem(pkg({}, []))).toBeUndefined();
  });
  it.each([
    ['an injected edge', pkg({ '@evil/x': '1.0.0' }, []), 'declares no dependency on @evil/x'],
    ['an edge whose version the range refuses', pkg({ '@acme/base': '2.0.0' }, [req('@acme/base', '^1.0.0')]), 'requires @acme/base ^1.0.0'],
    ['a required dependency without an edge', pkg({}, [req('@acme/base', '^1.0.0')]), 'no version of it is recorded'],
    ['an optional edge outside its range', pkg({ '@acme/extra': '3.0.0' }, [req('@acme/extra', '^2', true)]), 'requires @acme/extra ^2'],
  ])('refuses %s', (_what, p, text) => {
    expect(edgeProblem(p)).toContain(text);
    expect(() => checkEdges([p], 'lock')).toThrow(expect.objectContaining({ code: 'E_LOCK_MISMATCH' }));
    expect(() => checkEdges([p], 'index')).toThrow(expect.objectContaining({ code: 'E_INTEGRITY' }));
  });
});

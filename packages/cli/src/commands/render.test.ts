/**
 * `ctxpkg render` on budgets too small for the frame: the error names the smallest budget that
 * works, in the unit of the flag used (spec/pack.md §4), and that budget then works.
 */
import { describe, expect, it } from 'vitest';
import { makeProject, mgraph, mnode, run } from '../targets/__tests__/harness.js';

const project = () => makeProject({ graph: mgraph([mnode('@acme/a', 'g', { type: 'gotcha', content: 'Never log tokens.' }), mnode('@acme/a', 'f')]) });

describe('ctxpkg render: E_BUDGET names the minimum', () => {
  it('--max-bytes: the smallest budget that works, which then works', async () => {
    const root = project();
    const r = await run(['render', '--max-bytes', '40'], root);
    expect(r.code).toBe(1);
    const m = /the smallest budget that works is (\d+) bytes/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    const need = Number(m?.[1]);
    expect((await run(['render', '--max-bytes', String(need)], root)).code).toBe(0);
    expect((await run(['render', '--max-bytes', String(need - 1)], root)).code).toBe(1);
  });

  it('--max-tokens: says it in tokens too', async () => {
    const root = project();
    const r = await run(['render', '--max-tokens', '10'], root);
    expect(r.code).toBe(1);
    const m = /the smallest that works is --max-tokens (\d+)\)/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(r.stderr).toContain(`hint: use --max-tokens ${m?.[1]} or more`);
    expect((await run(['render', '--max-tokens', String(m?.[1])], root)).code).toBe(0);
    expect((await run(['render', '--max-tokens', String(Number(m?.[1]) - 1)], root)).code).toBe(1);
  });
});

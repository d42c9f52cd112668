/**
 * attack3: a file changes between the moment `ctxpkg sync` reads it and the moment it writes
 * (an editor saves `.mcp.json` while sync runs). Sync wrote the text it planned from the old
 * bytes and the user's edit was lost; now it stops before writing anything (`E_LOCKED`, "run
 * `ctxpkg sync` again") and the edit stays. The write is simulated from inside the read that
 * plans the MCP entry (`planMcp`), which is where the window opens.
 */
import { describe, expect, it, vi } from 'vitest';

const edit = { path: '', text: '', done: false };

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const readFileSync = ((path: unknown, ...rest: unknown[]) => {
    const out = (fs.readFileSync as (...a: unknown[]) => unknown)(path, ...rest);
    if (!edit.done && edit.path !== '' && path === edit.path && (new Error().stack ?? '').includes('planMcp')) {
      edit.done = true;
      fs.writeFileSync(edit.path, edit.text);
    }
    return out;
  }) as typeof fs.readFileSync;
  return { ...fs, default: { ...fs, readFileSync }, readFileSync };
});

const { join } = await import('node:path');
const { makeProject, mgraph, mnode, readFile, run, writeGraph } = await import('../../packages/cli/src/targets/__tests__/harness.js');

describe('attack3: a file that changes while sync runs', () => {
  it('.mcp.json saved by another program after sync read it: nothing is written, the edit stays', async () => {
    const mine = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n  }\n}\n';
    const theirs = '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "b": { "command": "y" }\n  }\n}\n';
    const root = makeProject({ files: { 'AGENTS.md': '# Mine\n', '.mcp.json': mine }, context: { sync: { targets: ['agents-md', 'claude'] } } });
    writeGraph(root, mgraph([mnode('@acme/auth', 'g1', { type: 'gotcha', content: 'Never log session tokens.' })]));
    Object.assign(edit, { path: join(root, '.mcp.json'), text: theirs, done: false });
    const r = await run(['sync', '--json'], root);
    expect(edit.done).toBe(true);
    expect(readFile(root, '.mcp.json')).toBe(theirs);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('E_LOCKED');
    expect(readFile(root, 'AGENTS.md')).toBe('# Mine\n');
    // Run again: the entry goes in next to the new server.
    const again = await run(['sync', '--json'], root);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(JSON.parse(readFile(root, '.mcp.json') as string).mcpServers).toEqual({ a: { command: 'x' }, b: { command: 'y' }, ctxpkg: { command: 'ctxpkg', args: ['mcp'] } });
  });
});

/**
 * The agent's view of the MCP registration: after `ctxpkg sync`, start the server exactly as the
 * host would — the `command` and `args` of the entry sync wrote, in the project folder — connect
 * the official SDK client, and reach an item the always-on block left on demand through
 * `search_context`. Both command forms: `ctxpkg mcp` (a `ctxpkg` on PATH) and `npx --no ctxpkg mcp`
 * (the project's own dependency in node_modules/.bin; `--no`: no registry download).
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { FIXED_NOW, homeDeps, makeProject, mgraph, mnode, readFile, run, writeFile } from '../packages/cli/src/targets/__tests__/harness.js';
import { REPO_ROOT } from './support/shared.js';

const TSX = fileURLToPath(import.meta.resolve('tsx'));
const BIN = join(REPO_ROOT, 'packages', 'cli', 'src', 'bin.ts');

/** A `ctxpkg` executable in `dir` that runs this checkout's CLI from source. */
function ctxpkgShim(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, 'ctxpkg');
  writeFileSync(p, `#!/bin/sh\nexec "${process.execPath}" --conditions=source --import "${TSX}" "${BIN}" "$@"\n`);
  chmodSync(p, 0o755);
}

/** 40 facts: more than a 2 KiB always-on block holds, so most are on demand. */
function graph() {
  return mgraph(Array.from({ length: 40 }, (_, i) => mnode('@acme/ops', `f${i}`, { type: 'fact', content: `Fact ${i}: the ${i === 37 ? 'billing reconciler runs at 02:00 UTC' : `service number ${i} listens on port ${8000 + i}`}.` })));
}

async function searchAsHost(root: string, entry: { command: string; args: string[] }, path: string): Promise<string> {
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, cwd: root, env: { ...getDefaultEnvironment(), ...homeDeps(root).env, PATH: path, npm_config_update_notifier: 'false' } as Record<string, string>, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'host', version: '1.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name), stderr).toContain('search_context');
    const r = (await client.callTool({ name: 'search_context', arguments: { query: 'billing reconciler' } })) as { content: Array<{ text: string }>; isError?: boolean };
    expect(r.isError, stderr).toBeFalsy();
    return r.content.map((c) => c.text).join('');
  } finally {
    await client.close();
  }
}

describe.skipIf(process.platform === 'win32')('the MCP server sync registers starts from the host\'s config and answers search_context', () => {
  it('`ctxpkg mcp` from .mcp.json (Claude Code) reaches an item the block left on demand', async () => {
    const root = makeProject({ graph: graph(), context: { sync: { targets: ['agents-md', 'claude'], max_bytes: 2048 } } });
    expect((await run(['sync'], root)).code).toBe(0);
    expect(readFile(root, 'AGENTS.md')).not.toContain('billing reconciler');
    expect(readFile(root, 'AGENTS.md')).toContain('search_context');
    const entry = JSON.parse(readFile(root, '.mcp.json') as string).mcpServers.ctxpkg;
    const bin = mkdtempSync(join(tmpdir(), 'ctxpkg-path-'));
    ctxpkgShim(bin);
    const answer = await searchAsHost(root, entry, [bin, process.env.PATH ?? ''].join(delimiter));
    expect(answer).toContain('billing reconciler runs at 02:00 UTC');
  }, 60_000);

  it('`npx --no ctxpkg mcp` from .vscode/mcp.json runs the project\'s own dependency', async () => {
    const root = makeProject({ graph: graph(), context: { sync: { targets: ['agents-md', 'copilot'], max_bytes: 2048 } } });
    writeFile(root, 'package.json', '{\n  "name": "app",\n  "private": true,\n  "devDependencies": { "ctxpkg": "*" }\n}\n');
    ctxpkgShim(join(root, 'node_modules', '.bin'));
    expect((await run(['sync'], root)).code).toBe(0);
    const vscode = readFile(root, '.vscode/mcp.json') as string;
    const entry = JSON.parse(vscode).servers.ctxpkg;
    expect(entry).toEqual({ type: 'stdio', command: 'npx', args: ['--no', 'ctxpkg', 'mcp'] });
    const answer = await searchAsHost(root, entry, process.env.PATH ?? '');
    expect(answer).toContain('billing reconciler runs at 02:00 UTC');
  }, 60_000);

  // Found by spawning the entry as a host would, in a project where ctxpkg was run without being
  // on PATH: sync said "registered … each agent loads it when it next starts" while the host's
  // spawn failed (ENOENT). The registration is the same on every machine (committed files), so
  // sync keeps it and says, with the fix, that it will not start here.
  it('says so when the registered command will not start on this machine, and not when it will', async () => {
    const root = makeProject({ graph: graph(), context: { sync: { targets: ['agents-md', 'claude'] } } });
    const empty = mkdtempSync(join(tmpdir(), 'ctxpkg-path-'));
    const without = await run(['sync'], root, FIXED_NOW, { PATH: empty });
    expect(without.code, without.stderr).toBe(0);
    expect(without.stderr).toContain('the MCP server command `ctxpkg mcp` will not start on this machine: no `ctxpkg` command on PATH');
    expect(without.stderr).toContain('registered in .mcp.json');
    const entry = JSON.parse(readFile(root, '.mcp.json') as string).mcpServers.ctxpkg;
    await expect(searchAsHost(root, entry, empty)).rejects.toThrow();
    const bin = mkdtempSync(join(tmpdir(), 'ctxpkg-path-'));
    ctxpkgShim(bin);
    const withIt = await run(['sync'], root, FIXED_NOW, { PATH: [empty, bin].join(delimiter) });
    expect(withIt.stderr).not.toContain('will not start');
  }, 60_000);

  it('says `npm install` is needed when package.json lists ctxpkg but node_modules has no ctxpkg', async () => {
    const root = makeProject({ graph: graph(), context: { sync: { targets: ['agents-md', 'copilot'] } } });
    writeFile(root, 'package.json', '{ "devDependencies": { "ctxpkg": "*" } }\n');
    const r = await run(['sync'], root, FIXED_NOW, { PATH: process.env.PATH ?? '' });
    expect(r.stderr).toContain('the MCP server command `npx --no ctxpkg mcp` will not start on this machine: package.json lists ctxpkg but node_modules/.bin/ctxpkg is missing (run `npm install`)');
    ctxpkgShim(join(root, 'node_modules', '.bin'));
    const again = await run(['sync'], root, FIXED_NOW, { PATH: process.env.PATH ?? '' });
    expect(again.stderr).not.toContain('will not start');
  }, 60_000);
});

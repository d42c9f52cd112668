/**
 * The MCP server over stdio with the SDK's real client, spawning our binary from source
 * (`node --conditions=source --import tsx packages/cli/src/bin.ts mcp`, which works on a clean
 * clone after `npm ci` without a build).
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homeDeps, makeProject, mgraph, mnode, writeGraph } from '../packages/cli/src/targets/__tests__/harness.js';
import { REPO_ROOT } from './support/shared.js';

const TSX = fileURLToPath(import.meta.resolve('tsx'));
const BIN = join(REPO_ROOT, 'packages', 'cli', 'src', 'bin.ts');
const LEAK = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

function graph(extra: ReturnType<typeof mnode>[] = []) {
  const many = Array.from({ length: 2000 }, (_, i) => mnode('@acme/bulk', `n${String(i).padStart(4, '0')}`, { content: `Bulk note ${i} about caching layers and cache invalidation. `.repeat(3) }));
  return mgraph(
    [
      mnode('@acme/auth', 'root', { type: 'section', content: 'Auth rules' }),
      mnode('@acme/auth', 'g1', { type: 'gotcha', content: 'Never log session tokens.', file_path: 'AGENTS.md', line_start: 3, line_end: 3 }),
      mnode('@acme/auth', 'c1', { type: 'convention', content: 'Validate the JWT audience on every request.' }),
      mnode('@acme/auth', 'leak', { type: 'fact', content: `The deploy token is ${LEAK}` }),
      ...many,
      ...extra,
    ],
    [
      { from: '@acme/auth#root', to: '@acme/auth#g1', type: 'contains' },
      { from: '@acme/auth#root', to: '@acme/auth#c1', type: 'contains' },
    ],
  );
}

type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean };
const text = (r: unknown): string => (r as TextResult).content.map((c) => c.text).join('');
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

describe('ctxpkg mcp (stdio, real SDK client)', () => {
  let client: Client;
  let root: string;
  let stderr = '';

  beforeAll(async () => {
    root = makeProject({ graph: graph() });
    const transport = new StdioClientTransport({ command: process.execPath, args: ['--conditions=source', '--import', TSX, BIN, 'mcp'], cwd: root, env: { ...getDefaultEnvironment(), ...homeDeps(root).env } as Record<string, string>, stderr: 'pipe' });
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    client = new Client({ name: 'ctxpkg-test', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
  });

  it('lists the four read-only tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_node', 'neighbors', 'render_pack', 'search_context']);
    for (const t of tools) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
  });

  it('search_context answers with provenance inside the untrusted block, within max_bytes', async () => {
    const r = await client.callTool({ name: 'search_context', arguments: { query: 'session tokens', max_bytes: 3000 } });
    const t = text(r);
    expect((r as TextResult).isError).toBeFalsy();
    expect(bytes(t)).toBeLessThanOrEqual(3000);
    expect(t).toContain('<!-- @acme/auth#g1 · @acme/auth@1.0.0 AGENTS.md:3 -->\nNever log session tokens.');
    expect(t.indexOf('--- BEGIN UNTRUSTED CONTEXT')).toBeLessThan(t.indexOf('<!-- @acme/auth#g1'));
    expect(t.trimEnd().endsWith('--- END UNTRUSTED CONTEXT ---')).toBe(true);
    expect(t).not.toContain(LEAK);
  });

  it('keeps every answer within its budget, by default well under 25k tokens', async () => {
    const def = text(await client.callTool({ name: 'search_context', arguments: { query: 'cache invalidation' } }));
    expect(bytes(def)).toBeLessThanOrEqual(16384);
    expect(def).toMatch(/matches: 2000 /);
    expect(def).toMatch(/not shown \(byte_budget\): \d+/);
    for (const max of [600, 1000, 5000, 65536]) {
      const t = text(await client.callTool({ name: 'search_context', arguments: { query: 'cache', max_bytes: max } }));
      expect(bytes(t)).toBeLessThanOrEqual(max);
    }
    const pack = text(await client.callTool({ name: 'render_pack', arguments: { focus: 'src/auth/**', max_bytes: 4000 } }));
    expect(bytes(pack)).toBeLessThanOrEqual(4000);
    expect(pack).toContain('omitted:');
    const big = text(await client.callTool({ name: 'render_pack', arguments: {} }));
    expect(bytes(big)).toBeLessThanOrEqual(16384);
  });

  it('refuses a budget above the cap through the input schema', async () => {
    const r = (await client.callTool({ name: 'search_context', arguments: { query: 'x', max_bytes: 10_000_000 } })) as TextResult;
    expect(r.isError).toBe(true);
  });

  it('get_node shows one node with edges; withheld and unknown nodes say why', async () => {
    const g = text(await client.callTool({ name: 'get_node', arguments: { id: '@acme/auth#g1' } }));
    expect(g).toContain('Never log session tokens.');
    expect(g).toContain('edge: contains ← @acme/auth#root');
    const leak = text(await client.callTool({ name: 'get_node', arguments: { id: '@acme/auth#leak' } }));
    expect(leak).toContain('is withheld: secret (github_token)');
    expect(leak).not.toContain(LEAK);
    const missing = (await client.callTool({ name: 'get_node', arguments: { id: '@acme/auth#nope' } })) as TextResult;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^error E_NOT_FOUND: /);
  });

  it('neighbors walks edges both ways', async () => {
    const t = text(await client.callTool({ name: 'neighbors', arguments: { id: '@acme/auth#g1', depth: 2 } }));
    expect(t).toContain('<!-- @acme/auth#c1 · @acme/auth@1.0.0');
    expect(t).toContain('reached: depth 2 via contains from @acme/auth#root');
    expect(t).toContain('structural or withheld, not shown: 1');
  });

  it('serves resources for installed packages', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri).sort();
    expect(uris).toContain('ctxpkg://packages');
    expect(uris).toContain('ctxpkg://package/%40acme%2Fauth');
    const list = await client.readResource({ uri: 'ctxpkg://packages' });
    expect((list.contents[0] as { text: string }).text).toContain('- @acme/auth@1.0.0 — 3 items');
    const one = await client.readResource({ uri: 'ctxpkg://package/%40acme%2Fauth' });
    const body = (one.contents[0] as { text: string }).text;
    expect(body).toContain('# Context from @acme/auth (ctxpkg)');
    expect(body).toContain('omitted: 1 (secret 1)');
  });

  it('picks up a reinstall (merged.json changed) without a restart', async () => {
    writeGraph(root, graph([mnode('@acme/new', 'x', { content: 'Freshly installed zebra fact.' })]));
    await new Promise((r) => setTimeout(r, 20));
    const t = text(await client.callTool({ name: 'search_context', arguments: { query: 'zebra' } }));
    expect(t).toContain('@acme/new#x');
    expect(stderr).toBe('');
  });
});

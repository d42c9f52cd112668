/**
 * The MCP server over stdio with the official SDK client (`@modelcontextprotocol/sdk`), spawning
 * our binary from source (`node --conditions=source --import tsx packages/cli/src/bin.ts mcp`,
 * which works on a clean clone after `npm ci` without a build). The client validates every
 * tool's `structuredContent` against the `outputSchema` the server advertises (it throws on a
 * mismatch, and on a tool with a schema that returns no structured content), so every call here
 * is a schema check; `call` also asserts the structured content is there.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readVerified, writeVerified } from '../packages/cli/src/install/verified.js';
import { sealKey } from '../packages/cli/src/install/seal.js';
import { homeDeps, makeProject, mgraph, mnode, writeGraph, writeGraphText } from '../packages/cli/src/targets/__tests__/harness.js';
import { REPO_ROOT } from './support/shared.js';

const TSX = fileURLToPath(import.meta.resolve('tsx'));
const BIN = join(REPO_ROOT, 'packages', 'cli', 'src', 'bin.ts');
const LEAK = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
const AGENTS = ['# Auth rules', '', '## Tokens', '', '- Never log session tokens.', '- Validate the JWT audience on every request.', '', '## CI', '', '- Install with `npm ci --frozen-lockfile` in CI.'].join('\n');

function graph(extra: ReturnType<typeof mnode>[] = []) {
  const many = Array.from({ length: 2000 }, (_, i) => mnode('@acme/bulk', `n${String(i).padStart(4, '0')}`, { content: `Bulk note ${i} about caching layers and cache invalidation. `.repeat(3) }));
  const at = (local: string, type: string, a: number, b: number, content: string) => mnode('@acme/auth', local, { type, content, file_path: 'AGENTS.md', line_start: a, line_end: b });
  return mgraph(
    [
      at('AGENTS.md', 'section', 1, 10, 'Auth rules'),
      at('AGENTS.md:tokens', 'section', 3, 6, 'Tokens'),
      at('AGENTS.md:ci', 'section', 8, 10, 'CI'),
      at('AGENTS.md:tokens~1', 'gotcha', 5, 5, '- Never log session tokens.'),
      at('AGENTS.md:tokens~2', 'convention', 6, 6, '- Validate the JWT audience on every request.'),
      at('AGENTS.md:ci~1', 'procedure', 10, 10, '- Install with `npm ci --frozen-lockfile` in CI.'),
      mnode('@acme/auth', 'lockfile-words', { type: 'fact', content: 'The lockfile is frozen during releases; frozen files are never edited by hand.' }),
      mnode('@acme/auth', 'leak', { type: 'fact', content: `The deploy token is ${LEAK}` }),
      ...many,
      ...extra,
    ],
    [
      { from: '@acme/auth#AGENTS.md', to: '@acme/auth#AGENTS.md:tokens', type: 'contains' },
      { from: '@acme/auth#AGENTS.md', to: '@acme/auth#AGENTS.md:ci', type: 'contains' },
      { from: '@acme/auth#AGENTS.md:tokens', to: '@acme/auth#AGENTS.md:tokens~1', type: 'contains' },
      { from: '@acme/auth#AGENTS.md:tokens', to: '@acme/auth#AGENTS.md:tokens~2', type: 'contains' },
      { from: '@acme/auth#AGENTS.md:ci', to: '@acme/auth#AGENTS.md:ci~1', type: 'contains' },
    ],
  );
}

type Result = { content: Array<{ type: string; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
const text = (r: Result): string => r.content.map((c) => c.text).join('');
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Spawn `ctxpkg mcp` (from source) in `cwd` and connect the SDK client. */
async function connect(cwd: string, opts: { args?: string[]; roots?: string[]; env?: Record<string, string> } = {}): Promise<{ client: Client; stderr: () => string }> {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--conditions=source', '--import', TSX, BIN, 'mcp', ...(opts.args ?? [])],
    cwd,
    env: { ...getDefaultEnvironment(), ...homeDeps(cwd).env, ...(opts.env ?? {}) } as Record<string, string>,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'ctxpkg-test', version: '1.0.0' }, opts.roots ? { capabilities: { roots: { listChanged: true } } } : {});
  if (opts.roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: opts.roots!.map((r) => ({ uri: pathToFileURL(r).href })) }));
  await client.connect(transport);
  await client.listTools(); // caches the output schemas: every callTool below is validated against them
  return { client, stderr: () => stderr };
}

describe('ctxpkg mcp (stdio, official SDK client, output schemas enforced)', () => {
  let client: Client;
  let root: string;
  let stderr: () => string;
  const call = async (name: string, args: Record<string, unknown>): Promise<Result> => {
    const r = (await client.callTool({ name, arguments: args })) as Result;
    if (!r.isError) expect(r.structuredContent, `${name} returns structured content`).toBeTypeOf('object');
    return r;
  };

  beforeAll(async () => {
    root = makeProject({ graph: graph() });
    ({ client, stderr } = await connect(root, { env: { CTXPKG_MCP_POLL_MS: '100' } }));
  });

  afterAll(async () => {
    await client?.close();
  });

  it('lists five read-only tools, each with an input and an output schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_node', 'get_section', 'neighbors', 'render_pack', 'search_context']);
    for (const t of tools) {
      expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      expect(t.outputSchema?.type, t.name).toBe('object');
    }
  });

  it('search_context: the top 5 hits by default, structured and as compact text within 4 KiB', async () => {
    const r = await call('search_context', { query: 'session tokens' });
    const s = r.structuredContent as { total: number; limit: number; max_bytes: number; hits: Array<Record<string, unknown>> };
    expect(s).toMatchObject({ limit: 5, max_bytes: 4096 });
    expect(s.hits[0]).toMatchObject({
      rank: 1,
      id: '@acme/auth#AGENTS.md:tokens~1',
      package: '@acme/auth',
      version: '1.0.0',
      file: 'AGENTS.md',
      lines: [5, 5],
      heading_path: ['Auth rules', 'Tokens'],
      section: '@acme/auth#AGENTS.md:tokens',
      trust: 'reference',
      type: 'gotcha',
      text: '- Never log session tokens.',
      excerpt: false,
    });
    expect(s.hits[0]!.score).toBeGreaterThan(0);
    const t = text(r);
    expect(bytes(t)).toBeLessThanOrEqual(4096);
    expect(t).toContain('\n### Tokens\n<!-- #1 @acme/auth#AGENTS.md:tokens~1 line 5 -->\n- Never log session tokens.\n');
    expect(t.indexOf('--- BEGIN UNTRUSTED CONTEXT')).toBeLessThan(t.indexOf('<!-- #1 '));
    expect(t.trimEnd().endsWith('--- END UNTRUSTED CONTEXT ---')).toBe(true);
    expect(t).not.toContain(LEAK);
    const many = await call('search_context', { query: 'cache invalidation' });
    expect((many.structuredContent as { hits: unknown[]; total: number }).hits).toHaveLength(5);
    expect((many.structuredContent as { total: number }).total).toBe(2000);
  });

  it('search_context: identifiers and flags match exactly, ahead of nodes that only share their words', async () => {
    const r = await call('search_context', { query: '--frozen-lockfile' });
    expect((r.structuredContent as { hits: Array<{ id: string }> }).hits[0]!.id).toBe('@acme/auth#AGENTS.md:ci~1');
  });

  it('search_context: limit up to 50, budgets kept, bad arguments refused by the input schema', async () => {
    const r = await call('search_context', { query: 'cache', limit: 50, max_bytes: 65536 });
    expect((r.structuredContent as { hits: unknown[] }).hits).toHaveLength(50);
    expect(bytes(text(r))).toBeLessThanOrEqual(65536);
    for (const max of [700, 1000, 5000]) expect(bytes(text(await call('search_context', { query: 'cache', limit: 50, max_bytes: max })))).toBeLessThanOrEqual(max);
    for (const bad of [{ query: 'x', limit: 51 }, { query: 'x', limit: 0 }, { query: 'x', max_bytes: 10_000_000 }]) {
      expect(((await client.callTool({ name: 'search_context', arguments: bad })) as Result).isError, JSON.stringify(bad)).toBe(true);
    }
  });

  it('get_node: one node whole with its edges; withheld and unknown nodes say why', async () => {
    const g = await call('get_node', { id: '@acme/auth#AGENTS.md:tokens~1' });
    expect(text(g)).toContain('- Never log session tokens.');
    expect(g.structuredContent).toMatchObject({ id: '@acme/auth#AGENTS.md:tokens~1', withheld: null, structural: false, truncated: false, node: { file: 'AGENTS.md', lines: [5, 5] } });
    expect((g.structuredContent as { edges: unknown[] }).edges).toContainEqual({ type: 'contains', direction: 'in', node: '@acme/auth#AGENTS.md:tokens' });
    const leak = await call('get_node', { id: '@acme/auth#leak' });
    expect(text(leak)).toContain('is withheld: secret (github_token)');
    expect(leak.structuredContent).toMatchObject({ withheld: { reason: 'secret', secret_kinds: ['github_token'] }, node: null });
    expect(JSON.stringify(leak)).not.toContain(LEAK);
    const missing = (await client.callTool({ name: 'get_node', arguments: { id: '@acme/auth#nope' } })) as Result;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^error E_NOT_FOUND: /);
  });

  it('get_section: a whole section in source order, by the id a hit names or by heading path', async () => {
    const byId = await call('get_section', { section: '@acme/auth#AGENTS.md:tokens' });
    const t = text(byId);
    expect(t).toContain('# ctxpkg section: Auth rules › Tokens');
    expect(t.indexOf('- Never log session tokens.\n- Validate the JWT audience on every request.\n')).toBeGreaterThan(t.indexOf('--- BEGIN UNTRUSTED CONTEXT'));
    expect(byId.structuredContent).toMatchObject({ section: { id: '@acme/auth#AGENTS.md:tokens', lines: [3, 6], heading_path: ['Auth rules', 'Tokens'] }, total: 2, shown: 2, complete: true });
    const byPath = await call('get_section', { path: 'tokens' });
    expect(text(byPath)).toBe(t);
    const whole = await call('get_section', { path: 'Auth rules' });
    expect((whole.structuredContent as { nodes: Array<{ id: string }> }).nodes.map((n) => n.id)).toEqual(['@acme/auth#AGENTS.md:tokens~1', '@acme/auth#AGENTS.md:tokens~2', '@acme/auth#AGENTS.md:ci~1']);
    // One byte short of the whole answer: the last node no longer fits.
    const max = bytes(text(whole)) - 1;
    const cut = await call('get_section', { path: 'Auth rules', max_bytes: max });
    expect(bytes(text(cut))).toBeLessThanOrEqual(max);
    expect(cut.structuredContent).toMatchObject({ complete: false });
    const none = (await client.callTool({ name: 'get_section', arguments: { path: 'No such heading' } })) as Result;
    expect(none.isError).toBe(true);
    // A plain heading passed as `section` is read as a heading path (new-user 2 item 22).
    const plain = await call('get_section', { section: 'Auth rules' });
    expect(text(plain)).toBe(text(await call('get_section', { path: 'Auth rules' })));
    expect(((await client.callTool({ name: 'get_section', arguments: { section: '@acme/auth#AGENTS.md:nope' } })) as Result).isError).toBe(true);
  });

  it('neighbors walks edges both ways, through sections: the rest of a node\'s section is at distance 1', async () => {
    const r = await call('neighbors', { id: '@acme/auth#AGENTS.md:tokens~1' });
    expect(text(r)).toContain('<!-- @acme/auth#AGENTS.md:tokens~2 line 6 -->');
    expect(text(r)).toContain('related: in the same section');
    expect(text(r)).toContain('1 related item within 1 link');
    expect(text(r)).not.toMatch(/reached|structural or withheld/);
    expect(text(r)).toContain('shown: 1 of 1; not shown: 0');
    expect(r.structuredContent).toMatchObject({ start: '@acme/auth#AGENTS.md:tokens~1', depth: 1, reached: 2, hidden: 1, nodes: [{ id: '@acme/auth#AGENTS.md:tokens~2', distance: 1 }] });
    // Each step up the headings costs one: the CI section's item is three away (section, file, CI section).
    const far = await call('neighbors', { id: '@acme/auth#AGENTS.md:tokens~1', depth: 3 });
    expect((far.structuredContent as { nodes: Array<{ id: string; distance: number }> }).nodes.map((n) => [n.id, n.distance])).toEqual([
      ['@acme/auth#AGENTS.md:tokens~2', 1],
      ['@acme/auth#AGENTS.md:ci~1', 3],
    ]);
  });

  it('render_pack: the pack text and its figures', async () => {
    const r = await call('render_pack', { max_bytes: 4000 });
    expect(bytes(text(r))).toBeLessThanOrEqual(4000);
    expect(text(r)).toContain('not shown:');
    expect(text(r)).not.toMatch(/byte_budget|inputs:/);
    expect(text(r)).not.toContain('receipt'); // no receipt is written for an MCP answer
    expect(r.structuredContent).toMatchObject({ max_bytes: 4000, pack_sha256: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(bytes(text(await call('render_pack', {})))).toBeLessThanOrEqual(16384);
  });

  it('render_pack: a focus answers with what it names, like ctxpkg render --focus; naming nothing is an E_NOT_FOUND result', async () => {
    // A heading: that section only, first after the header.
    const r = await call('render_pack', { focus: 'Tokens' });
    const t = text(r);
    expect(t).toMatch(/\nselection: the 2 of \d+ items the focus names; the other \d+ are not in this pack/);
    const body = t.slice(t.indexOf('--- BEGIN UNTRUSTED CONTEXT'));
    expect(body).toMatch(/^--- BEGIN UNTRUSTED CONTEXT[^\n]*\n\n## @acme\/auth@1\.0\.0\n\n### Auth rules\n<!-- AGENTS\.md:1-10 -->\n\n#### Tokens\n<!-- AGENTS\.md:3-6 -->\n- Never log session tokens\.\n- Validate the JWT audience on every request\.\n\n--- END UNTRUSTED CONTEXT ---\n$/);
    expect(r.structuredContent).toMatchObject({ delivered: 2, omitted: 0 });
    // Words found only in a heading select under it too; nothing matching is an error result.
    expect(text(await call('render_pack', { focus: 'ci' }))).toContain('npm ci --frozen-lockfile');
    const none = await call('render_pack', { focus: 'zzqqxx nonexistentword' });
    expect(none.isError).toBe(true);
    expect(text(none)).toMatch(/^error E_NOT_FOUND: no installed heading or item matches "zzqqxx nonexistentword"/);
    expect(text(none)).toContain('ctxpkg ls --nodes');
  });

  it('serves resources; an unknown package is a JSON-RPC error, not an error text', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('ctxpkg://package/%40acme%2Fauth');
    const list = await client.readResource({ uri: 'ctxpkg://packages' });
    expect((list.contents[0] as { text: string }).text).toContain('- @acme/auth@1.0.0 — 5 items');
    const one = await client.readResource({ uri: 'ctxpkg://package/%40acme%2Fauth' });
    expect((one.contents[0] as { text: string }).text).toContain('# Context from @acme/auth (ctxpkg)');
    await expect(client.readResource({ uri: 'ctxpkg://package/%40acme%2Fnope' })).rejects.toMatchObject({ code: -32002, message: 'MCP error -32002: resource not found: package @acme/nope is not installed' });
  });

  it('picks up a reinstall without a restart and says so with notifications/resources/list_changed', async () => {
    let changed = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
      changed++;
    });
    writeGraph(root, graph([mnode('@acme/new', 'x', { content: 'Freshly installed zebra fact.' })]));
    for (let i = 0; i < 50 && changed === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(changed).toBe(1);
    const t = text(await call('search_context', { query: 'zebra' }));
    expect(t).toContain('@acme/new#x');
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain('ctxpkg://package/%40acme%2Fnew');
    expect(stderr()).toBe('');
  });

  it('an install that writes the graph before its seal is served (and announced) once the seal lands', async () => {
    let changed = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
      changed++;
    });
    const text = JSON.stringify(graph([mnode('@acme/late', 'y', { content: 'A quokka fact installed late.' })]), null, 2) + '\n';
    writeGraphText(root, text, { sealed: false }); // install: merged.json first …
    await new Promise((r) => setTimeout(r, 400)); // … the server polls meanwhile and sees an unsealed graph
    const before = changed;
    const key = sealKey(homeDeps(root), true)!;
    writeVerified(root, key, { ...readVerified(root, key), merged: { inputs: [], sha256: createHash('sha256').update(text, 'utf8').digest('hex') } }); // … then the seal
    for (let i = 0; i < 50 && changed === before; i++) await new Promise((r) => setTimeout(r, 100));
    expect(changed).toBeGreaterThan(before);
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain('ctxpkg://package/%40acme%2Flate');
    expect(text).toContain('quokka');
    expect(JSON.stringify(await call('search_context', { query: 'quokka' }))).toContain('@acme/late#y');
  });
});

describe('ctxpkg mcp outside a project', () => {
  it('answers initialize, reports the problem in every tool result and on stderr', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'ctxpkg-noproj-'));
    const { client, stderr } = await connect(empty);
    try {
      const r = (await client.callTool({ name: 'search_context', arguments: { query: 'x' } })) as Result;
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/^error E_NOT_FOUND: no ctxpkg\.json in /);
      expect(text(r)).toContain('--project');
      for (let i = 0; i < 50 && !stderr().includes('E_NOT_FOUND'); i++) await new Promise((res) => setTimeout(res, 50));
      expect(stderr()).toContain('ctxpkg mcp: error E_NOT_FOUND');
      expect((await client.listResources()).resources.map((x) => x.uri)).toEqual(['ctxpkg://packages']);
      // Reading a resource is a JSON-RPC error (not an error text as the body), said once.
      const err = await client.readResource({ uri: 'ctxpkg://packages' }).then(
        () => undefined,
        (e: { code: number; message: string }) => e,
      );
      expect(err).toMatchObject({ code: -32603 });
      expect(err!.message).toMatch(/^MCP error -32603: error E_NOT_FOUND: no ctxpkg\.json in [^\n]*\nhint: [^\n]*--project/);
    } finally {
      await client.close();
    }
  });

  it('serves the project named by --project, or the one the host passes as a root', async () => {
    const project = makeProject({ graph: graph() });
    const elsewhere = mkdtempSync(join(tmpdir(), 'ctxpkg-noproj-'));
    for (const how of [{ args: ['--project', project] }, { roots: [elsewhere, project] }]) {
      // The sealing key lives in the project's .home (harness); run from elsewhere with its env.
      const { client } = await connect(elsewhere, { ...how, env: homeDeps(project).env as Record<string, string> });
      try {
        let r: Result | undefined;
        for (let i = 0; i < 20; i++) {
          r = (await client.callTool({ name: 'search_context', arguments: { query: 'session tokens' } })) as Result;
          if (!r.isError) break;
          await new Promise((res) => setTimeout(res, 50)); // roots are read after the handshake
        }
        expect(r!.isError, JSON.stringify(how) + text(r!)).toBeFalsy();
        expect(text(r!)).toContain('Never log session tokens.');
      } finally {
        await client.close();
      }
    }
  });
});

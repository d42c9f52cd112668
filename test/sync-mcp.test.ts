/**
 * `ctxpkg sync` registers the ctxpkg MCP server with every agent that has a project MCP config
 * (new-user trial: the blocks name the `search_context` tool, but no host knew the server). Read
 * as the agent reads it: each written file is parsed (JSON, or JSON with comments for VS Code)
 * and the entry has the documented shape; the user's entries, comments and bytes stay; install →
 * uninstall (and target removal) leaves every file byte-identical, on this machine and in a
 * fresh clone without `.ctxpkg/`.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { makeProject, mgraph, mnode, readFile, run, writeFile, writeGraph } from '../packages/cli/src/targets/__tests__/harness.js';

function graph() {
  return mgraph([mnode('@acme/auth', 'g1', { type: 'gotcha', content: 'Never log session tokens.' })]);
}

/** Each host: target, config path, servers key, format, the entry it gets, and a file of the user's. */
const HOSTS = [
  {
    target: 'claude',
    path: '.mcp.json',
    key: 'mcpServers',
    jsonc: false,
    entry: { command: 'ctxpkg', args: ['mcp'] },
    mine: '{\n  "mcpServers": {\n    "github": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-github"],\n      "env": { "GITHUB_TOKEN": "${GITHUB_TOKEN}" }\n    }\n  }\n}\n',
  },
  { target: 'cursor', path: '.cursor/mcp.json', key: 'mcpServers', jsonc: false, entry: { command: 'ctxpkg', args: ['mcp'] }, mine: '{\n    "mcpServers": {\n        "docs": { "url": "https://mcp.example.com/mcp" }\n    }\n}' },
  {
    target: 'copilot',
    path: '.vscode/mcp.json',
    key: 'servers',
    jsonc: true,
    entry: { type: 'stdio', command: 'ctxpkg', args: ['mcp'] },
    mine: '{\n\t// Servers for this workspace.\n\t"inputs": [\n\t\t{ "type": "promptString", "id": "key", "password": true }\n\t],\n\t"servers": {\n\t\t"memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }, // keep\n\t},\n}\n',
  },
  { target: 'gemini', path: '.gemini/settings.json', key: 'mcpServers', jsonc: true, entry: { command: 'ctxpkg', args: ['mcp'] }, mine: '{\n  "theme": "GitHub",\n  "context": { "fileName": ["GEMINI.md"] }\n}\n' },
  { target: 'kiro', path: '.kiro/settings/mcp.json', key: 'mcpServers', jsonc: false, entry: { command: 'ctxpkg', args: ['mcp'] }, mine: '{"mcpServers":{"aws-docs":{"command":"uvx","args":["awslabs.aws-documentation-mcp-server@latest"],"disabled":false}}}\n' },
] as const;

/** The file as its agent parses it (JSON with comments for VS Code and Gemini CLI, else strict JSON). */
function agentParse(text: string, jsonc: boolean): Record<string, Record<string, unknown>> {
  if (!jsonc) return JSON.parse(text);
  const errors: ParseError[] = [];
  const v = parseJsonc(text, errors, { allowTrailingComma: true });
  expect(errors).toEqual([]);
  return v;
}

/** Every regular file under `root` (POSIX paths), `.ctxpkg/` and `.home/` excluded, and empty folders. */
function tree(root: string, dir = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(join(root, dir))) {
    const rel = dir ? `${dir}/${name}` : name;
    if (rel === '.ctxpkg' || rel === '.home') continue;
    if (statSync(join(root, rel)).isDirectory()) {
      const sub = tree(root, rel);
      if (sub.size === 0) out.set(`${rel}/`, '<empty dir>');
      for (const [k, v] of sub) out.set(k, v);
    } else out.set(rel, readFile(root, rel) as string);
  }
  return out;
}

function setTargets(root: string, targets: string[], extra: Record<string, unknown> = {}) {
  writeFile(root, 'ctxpkg.json', JSON.stringify({ dependencies: {}, registries: {}, trust: { require_signature: true }, context: { sync: { targets } }, ...extra }, null, 2) + '\n');
}

describe('ctxpkg sync registers the ctxpkg MCP server in each agent\'s project MCP config', () => {
  for (const h of HOSTS) {
    it(`${h.target}: ${h.path} gets the entry next to the user's servers; sync again changes nothing; uninstall restores the bytes (also in a fresh clone)`, async () => {
      for (const fresh of [false, true]) {
        const root = makeProject({ files: { [h.path]: h.mine, 'AGENTS.md': '# Mine\n' }, context: { sync: { targets: ['agents-md', h.target] } } });
        const before = tree(root);
        writeGraph(root, graph());
        const r = await run(['sync', '--json'], root);
        expect(r.code, r.stderr).toBe(0);
        expect(r.json.written).toContain(h.path);
        // The note names only the agents registered now (new-user trial: it named Claude Code's
        // approval after writing .vscode/mcp.json alone).
        const firstStart: Record<string, string> = { claude: ' (Claude Code asks once to approve a project server)', gemini: ' (Gemini CLI starts it only in a trusted folder)' };
        expect(r.json.notes).toContain(`MCP server "ctxpkg" (\`ctxpkg mcp\`) registered in ${h.path}: each agent loads it when it next starts${firstStart[h.target] ?? ''}`);
        if (h.target !== 'claude') expect(r.json.notes.join('\n')).not.toContain('Claude Code');
        const text = readFile(root, h.path) as string;
        const doc = agentParse(text, h.jsonc);
        expect(doc[h.key]?.ctxpkg).toEqual(h.entry);
        // Everything of the user's is still there, by value and byte for byte around the entry.
        const mine = agentParse(h.mine, h.jsonc);
        for (const [k, v] of Object.entries(mine)) {
          if (k === h.key) for (const [name, server] of Object.entries(v)) expect(doc[h.key]?.[name]).toEqual(server);
          else expect(doc[k]).toEqual(v);
        }
        expect(text.length).toBeGreaterThan(h.mine.length);
        // Comments stay on the lines they were written on.
        if (h.jsonc) for (const line of h.mine.split('\n').filter((l) => l.includes('// '))) expect(text.split('\n')).toContain(line);
        // Idempotent, and no warning about it.
        const again = await run(['sync', '--json'], root);
        expect(again.json.written).toEqual([]);
        expect(again.json.unchanged).toContain(h.path);
        expect((again.json.notes as string[]).filter((n) => n.startsWith('MCP server'))).toEqual([]);
        expect(readFile(root, h.path)).toBe(text);
        // Uninstall of the last package: the file is the user's again, byte for byte.
        if (fresh) rmSync(join(root, '.ctxpkg'), { recursive: true, force: true });
        writeGraph(root, mgraph([]));
        const u = await run(['sync', '--json'], root);
        expect(u.code, u.stderr).toBe(0);
        expect(u.json.removed).toContain(`${h.path} (ctxpkg MCP server entry)`);
        expect(tree(root)).toEqual(before);
      }
    });

    it(`${h.target}: without a config, sync creates ${h.path} holding only the entry; uninstall removes the file and the folders it created (also in a fresh clone)`, async () => {
      for (const fresh of [false, true]) {
        const root = makeProject({ files: { 'AGENTS.md': '# Mine\n' }, context: { sync: { targets: ['agents-md', h.target] } } });
        const before = tree(root);
        writeGraph(root, graph());
        expect((await run(['sync'], root)).code).toBe(0);
        const doc = agentParse(readFile(root, h.path) as string, h.jsonc);
        expect(doc).toEqual({ [h.key]: { ctxpkg: h.entry } });
        if (fresh) rmSync(join(root, '.ctxpkg'), { recursive: true, force: true });
        writeGraph(root, mgraph([]));
        const u = await run(['sync', '--json'], root);
        expect(u.code, u.stderr).toBe(0);
        expect(u.json.removed).toContain(`${h.path} (ctxpkg MCP server; the file sync created)`);
        expect(tree(root)).toEqual(before); // the file and every folder sync created are gone
      }
    });
  }

  it('--dry-run names the MCP configs it would write and writes none', async () => {
    const root = makeProject({ files: { '.mcp.json': HOSTS[0].mine }, graph: graph(), context: { sync: { targets: ['agents-md', 'claude', 'copilot'] } } });
    const r = await run(['sync', '--dry-run'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('would write .mcp.json');
    expect(r.stdout).toContain('would write .vscode/mcp.json');
    expect(r.stdout).toContain('note: MCP server "ctxpkg" (`ctxpkg mcp`) would be registered in .mcp.json, .vscode/mcp.json');
    expect(readFile(root, '.mcp.json')).toBe(HOSTS[0].mine);
    expect(existsSync(join(root, '.vscode'))).toBe(false);
  });

  it('registers `npx --no ctxpkg mcp` when ctxpkg is a dependency of the project, and moves the entry when that changes', async () => {
    const root = makeProject({ files: { 'package.json': '{\n  "name": "app",\n  "devDependencies": { "ctxpkg": "^0.1.0" }\n}\n' }, graph: graph(), context: { sync: { targets: ['agents-md', 'claude', 'copilot'] } } });
    expect((await run(['sync'], root)).code).toBe(0);
    expect(JSON.parse(readFile(root, '.mcp.json') as string).mcpServers.ctxpkg).toEqual({ command: 'npx', args: ['--no', 'ctxpkg', 'mcp'] });
    expect(agentParse(readFile(root, '.vscode/mcp.json') as string, true).servers?.ctxpkg).toEqual({ type: 'stdio', command: 'npx', args: ['--no', 'ctxpkg', 'mcp'] });
    // The dependency is dropped (ctxpkg installed globally instead): the entry follows.
    writeFile(root, 'package.json', '{\n  "name": "app"\n}\n');
    const r = await run(['sync', '--json'], root);
    expect(r.json.written).toEqual(['.mcp.json', '.vscode/mcp.json']);
    expect(JSON.parse(readFile(root, '.mcp.json') as string).mcpServers.ctxpkg).toEqual({ command: 'ctxpkg', args: ['mcp'] });
  });

  it("never overwrites the user's own ctxpkg entry: it is reported, kept through uninstall, and nothing else is held back", async () => {
    const mine = '{\n  "mcpServers": {\n    "ctxpkg": { "command": "node", "args": ["/opt/ctxpkg/bin/ctxpkg.js", "mcp", "--project", "."] }\n  }\n}\n';
    const root = makeProject({ files: { '.mcp.json': mine }, graph: graph(), context: { sync: { targets: ['agents-md', 'claude'] } } });
    const r = await run(['sync'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: .mcp.json: has a "ctxpkg" MCP server entry of its own in "mcpServers" that differs from what sync registers (`ctxpkg mcp`); left alone');
    expect(readFile(root, '.mcp.json')).toBe(mine);
    expect(readFile(root, 'AGENTS.md')).toContain('Never log session tokens.');
    writeGraph(root, mgraph([]));
    expect((await run(['sync'], root)).code).toBe(0);
    expect(readFile(root, '.mcp.json')).toBe(mine);
  });

  it('an entry sync wrote and the user then edited is left alone and reported', async () => {
    const root = makeProject({ graph: graph(), context: { sync: { targets: ['agents-md', 'cursor'] } } });
    expect((await run(['sync'], root)).code).toBe(0);
    const edited = (readFile(root, '.cursor/mcp.json') as string).replace('"mcp"', '"mcp",\n        "--project",\n        "."');
    writeFile(root, '.cursor/mcp.json', edited);
    const r = await run(['sync'], root);
    expect(r.stderr).toContain('warning: .cursor/mcp.json: the "ctxpkg" MCP server entry sync wrote in "mcpServers" was edited by hand; left alone');
    writeGraph(root, mgraph([]));
    expect((await run(['sync'], root)).code).toBe(0);
    expect(readFile(root, '.cursor/mcp.json')).toBe(edited);
  });

  it('an MCP config that is not valid JSON stops sync with E_INVALID_JSON naming it, and nothing is written', async () => {
    const broken = '{\n  "mcpServers": {\n    "a": { "command": "x" },\n  }\n}\n'; // trailing comma: not JSON
    const root = makeProject({ files: { '.mcp.json': broken }, graph: graph(), context: { sync: { targets: ['agents-md', 'claude'] } } });
    const r = await run(['sync'], root);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/E_INVALID_JSON: \.mcp\.json is not valid JSON \(\w+ at line 4, column 3\); ctxpkg sync did not register its MCP server and wrote nothing/);
    expect(readFile(root, '.mcp.json')).toBe(broken);
    expect(existsSync(join(root, 'AGENTS.md'))).toBe(false);
    expect(existsSync(join(root, 'CLAUDE.md'))).toBe(false);
    // The same text is fine where the agent allows comments and trailing commas (VS Code).
    const vs = makeProject({ files: { '.vscode/mcp.json': broken.replace('mcpServers', 'servers') }, graph: graph(), context: { sync: { targets: ['agents-md', 'copilot'] } } });
    expect((await run(['sync'], vs)).code).toBe(0);
  });

  it('--remove <target> removes exactly the entry; agents with only a user-level MCP config get nothing written outside the project', async () => {
    const mine = HOSTS[0].mine;
    const root = makeProject({ files: { '.mcp.json': mine }, graph: graph(), context: { sync: { targets: ['agents-md', 'claude', 'windsurf', 'cline'] } } });
    expect((await run(['sync'], root)).code).toBe(0);
    expect(JSON.parse(readFile(root, '.mcp.json') as string).mcpServers.ctxpkg).toEqual({ command: 'ctxpkg', args: ['mcp'] });
    expect(existsSync(join(root, '.home/.codeium'))).toBe(false);
    const files = [...tree(root).keys()];
    expect(files.filter((p) => /mcp/.test(p))).toEqual(['.mcp.json']);
    const rm = await run(['sync', '--remove', 'claude'], root);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain('remove .mcp.json (ctxpkg MCP server entry)');
    expect(readFile(root, '.mcp.json')).toBe(mine);
  });

  it('one note names every enabled agent whose MCP server the user registers by hand, with the command or config member (new-user trial 2, item 6)', async () => {
    const root = makeProject({ graph: graph(), context: { sync: { targets: ['agents-md', 'claude', 'windsurf', 'cline'] } } });
    const s = await run(['sync'], root);
    expect(s.code, s.stderr).toBe(0);
    const notes = s.stdout.split('\n').filter((l) => l.includes('search_context'));
    expect(notes).toEqual([
      'note: the agent files point to the MCP tool search_context, but sync cannot register the ctxpkg MCP server for every agent; do it yourself — ' +
        'Codex: codex mcp add ctxpkg -- ctxpkg mcp; ' +
        'Windsurf: add "ctxpkg": {"command":"ctxpkg","args":["mcp"]} to "mcpServers" in ~/.codeium/windsurf/mcp_config.json; ' +
        'Cline: add "ctxpkg": {"command":"ctxpkg","args":["mcp"]} to "mcpServers" in cline_mcp_settings.json (MCP Servers → Configure)',
    ]);
    // again on a sync that changes nothing (sync cannot see the user-level files), still one line
    const again = await run(['sync'], root);
    expect(again.stdout.split('\n').filter((l) => l.includes('search_context'))).toEqual(notes);
    // the project's own CLI through npx is the command named, as in the project configs
    writeFile(root, 'package.json', '{"name":"app","devDependencies":{"ctxpkg":"^0.1.0"}}\n');
    expect((await run(['sync'], root)).stdout).toContain('Codex: codex mcp add ctxpkg -- npx --no ctxpkg mcp; Windsurf: add "ctxpkg": {"command":"npx","args":["--no","ctxpkg","mcp"]}');
    // only agents whose project MCP config sync writes: no note
    const written = makeProject({ graph: graph(), context: { sync: { targets: ['claude', 'cursor'] } } });
    expect((await run(['sync'], written)).stdout).not.toContain('search_context');
  });
});

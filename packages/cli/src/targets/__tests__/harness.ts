/**
 * Test harness for render/sync/mcp: temp projects with a ctxpkg.json and a merged graph, and an
 * in-process CLI run with captured output and a fixed clock.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { MergedEdge, MergedGraph, MergedNode } from '@ctxpkg/format';
import type { CliDeps } from '../../deps.js';
import { sealKey } from '../../install/seal.js';
import { readVerified, writeVerified } from '../../install/verified.js';
import { runCli } from '../../program.js';

export const FIXED_NOW = '2025-06-01T12:00:00.000Z';

/** `sha256:<hex>` of lines a..b (1-based inclusive) of `text` by the provenance rule. */
export function srcHash(text: string, a: number, b: number): string {
  const lines = text.replace(/^\ufeff/, '').split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  return 'sha256:' + createHash('sha256').update(lines.slice(a - 1, b).join('\n')).digest('hex');
}

export function mnode(pkg: string, local: string, over: Partial<MergedNode> = {}): MergedNode {
  return { id: `${pkg}#${local}`, type: 'fact', content: `content of ${local}`, activation: 1.0, package: pkg, version: '1.0.0', local_id: local, ...over };
}

export function mgraph(nodes: MergedNode[], edges: Array<Pick<MergedEdge, 'from' | 'to' | 'type'>> = []): MergedGraph {
  const pkgs = new Map<string, string>();
  for (const n of nodes) pkgs.set(n.package, n.version);
  return {
    format: 'ctxpkg-merged-v1',
    inputs: [...pkgs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, v]) => ({ package: p, version: v, content_hash: createHash('sha256').update(p + v).digest('hex') })),
    nodes: [...nodes].sort((a, b) => (a.id < b.id ? -1 : 1)),
    edges: edges.map((e) => ({ ...e, weight: 1.0, packages: [] })),
    conflicts: [],
  };
}

/** A temp project: ctxpkg.json (with `context` when given), files, and merged.json when given. */
export function makeProject(opts: { files?: Record<string, string>; graph?: MergedGraph; context?: unknown } = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'ctxpkg-p-'));
  const manifest: Record<string, unknown> = { dependencies: {}, registries: {}, trust: { require_signature: true } };
  if (opts.context !== undefined) manifest.context = opts.context;
  writeFileSync(join(root, 'ctxpkg.json'), JSON.stringify(manifest, null, 2) + '\n');
  for (const [p, t] of Object.entries(opts.files ?? {})) writeFile(root, p, t);
  if (opts.graph) writeGraph(root, opts.graph);
  return root;
}

/** The user of a harness project: `CTXPKG_HOME` = `<root>/.home` (what `run` uses at `cwd` = root). */
export function homeDeps(root: string): Pick<CliDeps, 'env' | 'homeDir'> {
  return { env: { CTXPKG_HOME: join(root, '.home') }, homeDir: join(root, '.home') };
}

/**
 * Write merged.json as this project's user's install would: the text, and its SHA-256 bound in
 * the sealed `.ctxpkg/verified.json` under the key of `homeDeps(root)` (install/verified.ts), so
 * render/sync/mcp deliver it. `sealed: false` writes the text alone (a committed or edited file).
 */
export function writeGraphText(root: string, text: string, opts: { sealed?: boolean } = {}): void {
  writeFile(root, '.ctxpkg/graph/merged.json', text);
  if (opts.sealed === false) return;
  const key = sealKey(homeDeps(root), true);
  if (!key) throw new Error('harness: cannot create the sealing key');
  const rec = readVerified(root, key);
  writeVerified(root, key, { ...rec, merged: { inputs: [], sha256: createHash('sha256').update(text, 'utf8').digest('hex') } });
}

/** `writeGraphText` of the graph as install writes it (2-space JSON and a newline). */
export function writeGraph(root: string, graph: MergedGraph, opts: { sealed?: boolean } = {}): void {
  writeGraphText(root, JSON.stringify(graph, null, 2) + '\n', opts);
}

export function writeFile(root: string, rel: string, text: string): void {
  const full = join(root, rel);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
}

export function readFile(root: string, rel: string): string | undefined {
  const full = join(root, rel);
  return existsSync(full) ? readFileSync(full, 'utf8') : undefined;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** Run the CLI in process at `cwd` with a fixed clock; `env` is added to the environment (no PATH unless given). */
export async function run(argv: string[], cwd: string, now = FIXED_NOW, env: Record<string, string> = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const deps: CliDeps = {
    fetch: (() => {
      throw new Error('no network in these tests');
    }) as unknown as typeof fetch,
    ...homeDeps(cwd),
    env: { ...homeDeps(cwd).env, ...env },
    cwd,
    stdout: { write: (s: string) => ((stdout += s), true) },
    stderr: { write: (s: string) => ((stderr += s), true) },
    stdin: new PassThrough(),
    clock: () => new Date(now),
  };
  const code = await runCli(argv, deps);
  let json: unknown;
  if (argv.includes('--json')) {
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
  }
  return { code, stdout, stderr, json };
}

/**
 * `ctxpkg quickstart` — the main job end to end on real input (issue 5 item 7): start an embedded
 * registry (temporary data directory, free port), create a namespace and a publish token, create
 * a signed pack from the project's own AGENTS.md, publish it, install it into a fresh temporary
 * project, print the installed nodes, and clean up. Uses a throwaway user directory, so the
 * user's key, tokens and config are never touched.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export interface QuickstartOptions {
  from?: string;
  keep?: boolean;
}

/** Where the packaged file came from: `--from`, ./AGENTS.md, or the one bundled with ctxpkg. */
export type QuickstartSource = { path: string; origin: 'from' | 'cwd' | 'bundled' };

/**
 * The instruction file to package: `--from`, else ./AGENTS.md, else the AGENTS.md of the ctxpkg
 * checkout this command runs from (bundled with ctxpkg; the `--help` text says so and the output
 * names the file used). Throws `E_NOT_FOUND` when `--from` names no file or neither exists.
 */
export function quickstartSource(opts: QuickstartOptions, deps: Pick<CliDeps, 'cwd'>, bundled = bundledAgentsMd()): QuickstartSource {
  if (opts.from) {
    const path = resolve(deps.cwd, opts.from);
    if (!existsSync(path)) throw new CtxpkgError('E_NOT_FOUND', `no such file: ${opts.from}`, { hint: 'pass --from <instruction file>' });
    return { path, origin: 'from' };
  }
  const here = resolve(deps.cwd, 'AGENTS.md');
  if (existsSync(here)) return { path: here, origin: 'cwd' };
  if (bundled && existsSync(bundled)) return { path: bundled, origin: 'bundled' };
  throw new CtxpkgError('E_NOT_FOUND', 'no AGENTS.md in the current directory, and no AGENTS.md is bundled with this ctxpkg', {
    hint: 'run it in a directory with AGENTS.md, or pass --from <instruction file>',
  });
}

/** The AGENTS.md of the ctxpkg checkout (`packages/cli/{src,dist}/commands/` → repository root). */
function bundledAgentsMd(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'AGENTS.md');
}

function describeSource(s: QuickstartSource): string {
  if (s.origin === 'from') return `${s.path} (--from)`;
  if (s.origin === 'cwd') return `${s.path} (./AGENTS.md)`;
  return `${s.path} (no AGENTS.md in the current directory: the AGENTS.md bundled with ctxpkg)`;
}

export async function runQuickstart(opts: QuickstartOptions, deps: CliDeps): Promise<CommandResult> {
  const src = quickstartSource(opts, deps);
  const source = src.path;
  const work = mkdtempSync(join(tmpdir(), 'ctxpkg-quickstart-'));
  const dataDir = join(work, 'registry');
  const project = join(work, 'project');
  mkdirSync(project, { recursive: true });
  const { startRegistry, createNamespace, createToken } = await import('@ctxpkg/registry');
  const reg = await startRegistry({ dataDir, port: 0, gcIntervalMs: 0, shutdownTimeoutMs: 500 });
  const text: string[] = [];
  const steps: Record<string, unknown> = {};
  try {
    const registry = `${reg.url}/api`;
    await createNamespace({ store: reg.store }, 'demo');
    const token = await createToken({ store: reg.store }, { namespace: 'demo', scope: 'publish' });
    text.push(`source: ${describeSource(src)}`);
    text.push(`1. started a registry at ${registry} (data in ${dataDir}); namespace @demo, publish token ${token.token.slice(0, 9)}…`);
    const sub: CliDeps = {
      ...deps,
      env: { ...deps.env, CTXPKG_HOME: join(work, 'home'), CTXPKG_REGISTRY: registry, CTXPKG_TOKEN: token.token, CTXPKG_KEY_FILE: undefined },
      cwd: dirname(source),
    };
    const { runCreate } = await import('./create.js');
    const pkgFile = join(work, 'demo-agents-1.0.0.ctxpkg');
    const created = await runCreate({ name: '@demo/agents', version: '1.0.0', from: [basename(source)], out: pkgFile, description: `Contributor rules from ${basename(source)}` }, sub);
    steps.create = created.json;
    text.push(`2. created ${basename(pkgFile)} from ${source}:`, ...created.text.map((l) => `   ${l}`));
    const { runPublish } = await import('./publish.js');
    const published = await runPublish(pkgFile, {}, sub);
    steps.publish = published.json;
    text.push('3. published:', ...published.text.map((l) => `   ${l}`));
    const { runInit } = await import('./init.js');
    await runInit({}, { ...sub, cwd: project });
    const { runInstall } = await import('./install.js');
    const installed = await runInstall(['@demo/agents'], {}, { ...sub, cwd: project });
    steps.install = installed.json;
    text.push(`4. installed into a fresh project ${project}:`, ...installed.text.map((l) => `   ${l}`));
    const { readMergedGraph } = await import('../install/merged.js');
    const graph = readMergedGraph(project);
    if (!graph) throw new CtxpkgError('E_INTERNAL', 'the merged graph was not written');
    text.push(`5. installed nodes (${graph.nodes.length}, from .ctxpkg/graph/merged.json):`);
    const nodes = [...graph.nodes].sort((a, b) => (a.file_path ?? '').localeCompare(b.file_path ?? '') || (a.line_start ?? 0) - (b.line_start ?? 0) || a.id.localeCompare(b.id));
    for (const n of nodes) {
      const where = n.line_start ? `${n.file_path}:${n.line_start}${n.line_end !== n.line_start ? `-${n.line_end}` : ''}` : n.file_path ?? '';
      text.push(`   [${n.type}] ${n.content.replace(/\s+/g, ' ').slice(0, 110)}  (${where})`);
    }
    steps.nodes = graph.nodes.map((n) => ({ id: n.id, type: n.type, content: n.content, file_path: n.file_path, line_start: n.line_start, line_end: n.line_end }));
  } finally {
    await reg.close();
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
  }
  text.push(opts.keep ? `kept everything in ${work}` : 'cleaned up (the registry, its data and the temporary project are gone)');
  return { text, json: { source, source_origin: src.origin, kept: opts.keep ? work : null, ...steps } };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'quickstart', 'run the whole flow on an embedded registry: AGENTS.md → signed pack → publish → install')
    .option('--from <file>', 'instruction file to package (default: ./AGENTS.md; without one, the AGENTS.md bundled with ctxpkg — the output names the file used)')
    .option('--keep', 'keep the temporary registry and project for inspection')
    .addHelpText('after', examples(['ctxpkg quickstart', 'npm run demo', 'ctxpkg quickstart --from CLAUDE.md --keep']))
    .action(ctx.action(async (opts: QuickstartOptions) => runQuickstart(opts, ctx.deps)));
}

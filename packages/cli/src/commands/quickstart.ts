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
import type { CommandResult } from '../output.js';
import type { CommandContext } from '../program.js';
import { examples } from '../session.js';

export interface QuickstartOptions {
  from?: string;
  keep?: boolean;
}

/** The instruction file to package: `--from`, else ./AGENTS.md, else the repository's AGENTS.md. */
function sourceFile(opts: QuickstartOptions, deps: CliDeps): string {
  if (opts.from) return resolve(deps.cwd, opts.from);
  const here = resolve(deps.cwd, 'AGENTS.md');
  if (existsSync(here)) return here;
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'AGENTS.md');
  if (existsSync(repo)) return repo;
  throw new CtxpkgError('E_USAGE', 'no AGENTS.md here; pass --from <instruction file>');
}

export async function runQuickstart(opts: QuickstartOptions, deps: CliDeps): Promise<CommandResult> {
  const source = sourceFile(opts, deps);
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
  return { text, json: { source, kept: opts.keep ? work : null, ...steps } };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'quickstart', 'run the whole flow on an embedded registry: AGENTS.md → signed pack → publish → install')
    .option('--from <file>', 'instruction file to package (default: ./AGENTS.md)')
    .option('--keep', 'keep the temporary registry and project for inspection')
    .addHelpText('after', examples(['ctxpkg quickstart', 'npm run demo', 'ctxpkg quickstart --from CLAUDE.md --keep']))
    .action(ctx.action(async (opts: QuickstartOptions) => runQuickstart(opts, ctx.deps)));
}

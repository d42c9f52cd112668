/**
 * `ctxpkg quickstart` — the main job end to end on real input (issue 5 item 7): start an embedded
 * registry (temporary data directory, free port), create a namespace and a publish token, create
 * a signed pack from the project's own AGENTS.md, publish it, install it into a fresh temporary
 * project, print the installed nodes, and clean up. Uses a throwaway user directory, so the
 * user's key, tokens and config are never touched.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
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

/** Installed nodes listed in step 5 (the rest are counted). */
const SHOWN_NODES = 12;

/** `.claude/rules` beside `source` when it holds rule files (packaged with it), else undefined. */
function scopedRulesBeside(source: string): string | undefined {
  const dir = join(dirname(source), '.claude', 'rules');
  try {
    return statSync(dir).isDirectory() && readdirSync(dir).some((n) => n.endsWith('.md')) ? '.claude/rules' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What an agent reads in the demo project: the AGENTS.md block, and one native path-scoped rule
 * file (the first `.claude/rules/ctxpkg-*.md`), printed whole.
 */
function showAgentFiles(project: string): string[] {
  const out: string[] = [];
  const agents = readFileSync(join(project, 'AGENTS.md'), 'utf8');
  out.push('', '=== what an agent reads: AGENTS.md (the ctxpkg block; Codex, Cursor, Windsurf, Kiro, Cline and the other AGENTS.md readers load it) ===', agents.slice(agents.indexOf('<!-- ctxpkg:begin')).trimEnd());
  let rules: string[] = [];
  try {
    rules = readdirSync(join(project, '.claude', 'rules')).filter((n) => n.startsWith('ctxpkg-')).sort();
  } catch {
    rules = [];
  }
  const first = rules[0];
  if (first !== undefined) {
    out.push('', `=== a native path-scoped rule file: .claude/rules/${first} (Claude Code loads it only for files matching its paths:) ===`, readFileSync(join(project, '.claude', 'rules', first), 'utf8').trimEnd());
  } else {
    out.push('', '(no path-scoped rules in this package: add a .claude/rules/*.md with `paths:` frontmatter beside it to see one)');
  }
  return out;
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
  const agentView: string[] = [];
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
    // Path-scoped rules beside the file (`.claude/rules/*.md` with `paths:`) go into the package too.
    const rulesDir = src.origin === 'from' ? undefined : scopedRulesBeside(source);
    const from = [basename(source), ...(rulesDir ? [rulesDir] : [])];
    const created = await runCreate({ name: '@demo/agents', version: '1.0.0', from, out: pkgFile, description: `Contributor rules from ${from.join(', ')}` }, sub);
    steps.create = created.json;
    text.push(`2. created ${basename(pkgFile)} from ${source}:`, ...created.text.map((l) => `   ${l}`));
    const { runPublish } = await import('./publish.js');
    const published = await runPublish(pkgFile, {}, sub);
    steps.publish = published.json;
    text.push('3. published:', ...published.text.map((l) => `   ${l}`));
    const { runInit } = await import('./init.js');
    // The demo project trusts its own scope: @demo's signed rules arrive as instructions.
    await runInit({ trust: ['@demo'] }, { ...sub, cwd: project });
    const { runInstall } = await import('./install.js');
    const installed = await runInstall(['@demo/agents'], {}, { ...sub, cwd: project });
    steps.install = installed.json;
    text.push(`4. installed into a fresh project ${project}:`, ...installed.text.map((l) => `   ${l}`));
    const { readMergedGraph } = await import('../install/merged.js');
    const graph = readMergedGraph(project);
    if (!graph) throw new CtxpkgError('E_INTERNAL', 'the merged graph was not written');
    text.push(`5. installed nodes (${graph.nodes.length}, from .ctxpkg/graph/merged.json; \`ctxpkg ls --nodes\` lists them all):`);
    const nodes = [...graph.nodes].sort((a, b) => (a.file_path ?? '').localeCompare(b.file_path ?? '') || (a.line_start ?? 0) - (b.line_start ?? 0) || a.id.localeCompare(b.id));
    for (const n of nodes.slice(0, SHOWN_NODES)) {
      const where = n.line_start ? `${n.file_path}:${n.line_start}${n.line_end !== n.line_start ? `-${n.line_end}` : ''}` : n.file_path ?? '';
      text.push(`   [${n.type}] ${n.content.replace(/\s+/g, ' ').slice(0, 110)}  (${where})`);
    }
    if (nodes.length > SHOWN_NODES) text.push(`   … and ${nodes.length - SHOWN_NODES} more`);
    steps.nodes = graph.nodes.map((n) => ({ id: n.id, type: n.type, content: n.content, file_path: n.file_path, line_start: n.line_start, line_end: n.line_end }));
    // Claude Code as a second target: its native path-scoped rule files.
    const { runSync } = await import('./sync.js');
    const synced = await runSync({ target: ['claude'] }, { ...sub, cwd: project });
    steps.sync = synced.json;
    text.push('6. ctxpkg sync --target claude (AGENTS.md is always a target):', ...synced.text.map((l) => `   ${l}`));
    agentView.push(...showAgentFiles(project));
  } finally {
    await reg.close();
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
  }
  text.push(opts.keep ? `kept everything in ${work}` : 'cleaned up (the registry, its data and the temporary project are gone)');
  text.push(...agentView);
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

/**
 * `ctxpkg ls [--depth n]`: the installed dependency tree from ctxpkg.lock (no network).
 * Roots are the declared dependencies; children are each package's locked dependencies. A
 * version marked "(yanked)" was listed as yanked by its registry at the last install or update
 * that contacted it (from the sealed `.ctxpkg/verified.json`, install/verified.ts).
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

interface TreeNode {
  name: string;
  version: string | null;
  range?: string;
  missing?: boolean;
  cycle?: boolean;
  yanked?: boolean;
  dependencies: TreeNode[];
}

/**
 * `ctxpkg ls --nodes [package]`: every installed node id (from the merged graph) with its type,
 * source line and the start of its text — the ids `context.pins` and `ctxpkg pin` take. Does not
 * compile a pack, so it works while a pin is broken (spec/pack.md §2).
 */
async function runLsNodes(pkg: string | undefined, deps: CliDeps): Promise<CommandResult> {
  const { loadProjectContext } = await import('../targets/index.js');
  const { STRUCTURAL_TYPES } = await import('@ctxpkg/format');
  const project = loadProjectContext(deps, { requireGraph: true });
  const nodes = project.graph.nodes
    .filter((n) => n.type !== 'scope' && (pkg === undefined || n.package === pkg))
    .sort((a, b) => (a.package < b.package ? -1 : a.package > b.package ? 1 : 0) || (a.file_path ?? '').localeCompare(b.file_path ?? '') || (a.line_start ?? 0) - (b.line_start ?? 0) || (a.id < b.id ? -1 : 1));
  if (pkg !== undefined && nodes.length === 0) throw new CtxpkgError('E_NOT_FOUND', `${pkg} is not installed (or has no nodes)`, { hint: '`ctxpkg ls` shows the installed packages' });
  const pins = new Set(project.config.pack.pins);
  const text = nodes.map((n) => {
    const at = n.file_path ? ` ${n.file_path}${n.line_start ? `:${n.line_start}` : ''}` : '';
    const body = STRUCTURAL_TYPES.has(n.type) ? '(heading: `ctxpkg pin` it to pin the section and its children)' : n.content.replace(/\s+/g, ' ').trim().slice(0, 80);
    return `${pins.has(n.id) ? '* ' : '  '}${n.id}  [${n.type}${at}] ${body}`;
  });
  if (text.length === 0) text.push('(nothing installed)');
  return {
    text,
    json: { nodes: nodes.map((n) => ({ id: n.id, package: n.package, version: n.version, type: n.type, file_path: n.file_path ?? null, line_start: n.line_start ?? null, line_end: n.line_end ?? null, pinned: pins.has(n.id), content: n.content })) },
  };
}

export async function runLs(opts: { depth?: string; nodes?: boolean }, deps: CliDeps, pkg?: string): Promise<CommandResult> {
  if (opts.nodes) return runLsNodes(pkg, deps);
  if (pkg !== undefined) throw new CtxpkgError('E_USAGE', 'a package argument goes with --nodes (ctxpkg ls --nodes @acme/rules)');
  const depth = opts.depth === undefined ? Infinity : Number(opts.depth);
  if (!Number.isInteger(depth) && depth !== Infinity) throw new CtxpkgError('E_USAGE', `--depth must be a whole number, got ${opts.depth}`);
  const { readLock } = await import('../install/lockio.js');
  const { hasArtifact } = await import('../store.js');
  const { readVerified } = await import('../install/verified.js');
  const { sealKey } = await import('../install/seal.js');
  const { findProjectRoot, readManifest } = await import('../project.js');
  const { root } = findProjectRoot(deps.cwd);
  const manifest = readManifest(root);
  const lock = readLock(root).state;
  const verified = readVerified(root, sealKey(deps, false));
  const build = (name: string, level: number, path: Set<string>, range?: string): TreeNode => {
    const e = lock.packages.get(name);
    const node: TreeNode = { name, version: e?.version ?? null, dependencies: [] };
    if (range !== undefined) node.range = range;
    if (!e) {
      node.missing = true;
      return node;
    }
    if (!hasArtifact(root, e.artifact_sha256)) node.missing = true;
    if (verified.artifacts.get(e.artifact_sha256)?.yanked === true) node.yanked = true;
    if (path.has(name)) {
      node.cycle = true;
      return node;
    }
    if (level < depth) {
      const next = new Set(path).add(name);
      for (const d of Object.keys(e.dependencies).sort()) node.dependencies.push(build(d, level + 1, next));
    }
    return node;
  };
  const roots = Object.keys(manifest.dependencies).sort().map((n) => build(n, 0, new Set(), manifest.dependencies[n]));
  const text: string[] = [root];
  const draw = (nodes: TreeNode[], prefix: string): void => {
    nodes.forEach((n, i) => {
      const lastOne = i === nodes.length - 1;
      const label = `${n.name}@${n.version ?? '(not installed)'}${n.yanked ? ' (yanked)' : ''}${n.cycle ? ' (cycle)' : ''}${n.missing && n.version ? ' (missing from store: run ctxpkg install)' : ''}`;
      text.push(`${prefix}${lastOne ? '└── ' : '├── '}${label}`);
      draw(n.dependencies, prefix + (lastOne ? '    ' : '│   '));
    });
  };
  draw(roots, '');
  if (roots.length === 0) text.push('(no dependencies)');
  return { text, json: { root, dependencies: roots } };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'ls [package]', 'show the installed dependency tree, or with --nodes every installed node id')
    .alias('list')
    .option('--depth <n>', 'how many levels below the declared dependencies to show')
    .option('--nodes', 'list installed node ids (for "context.pins" and `ctxpkg pin`), of one package when named')
    .addHelpText('after', examples(['ctxpkg ls', 'ctxpkg ls --depth 0 --json', 'ctxpkg ls --nodes', 'ctxpkg ls --nodes @acme/rules']))
    .action(ctx.action(async (pkg: string | undefined, opts: { depth?: string; nodes?: boolean }) => runLs(opts, ctx.deps, pkg)));
}

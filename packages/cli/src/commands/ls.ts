/**
 * `ctxpkg ls [--depth n]`: the installed dependency tree from ctxpkg.lock (no network).
 * Roots are the declared dependencies; children are each package's locked dependencies. A
 * version marked "(yanked)" was listed as yanked by its registry at the last install or update
 * that contacted it (from the sealed `.ctxpkg/verified.json`, install/verified.ts).
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';
import { findProjectRoot, readManifest } from '../project.js';

interface TreeNode {
  name: string;
  version: string | null;
  range?: string;
  missing?: boolean;
  cycle?: boolean;
  yanked?: boolean;
  dependencies: TreeNode[];
}

export async function runLs(opts: { depth?: string }, deps: CliDeps): Promise<CommandResult> {
  const depth = opts.depth === undefined ? Infinity : Number(opts.depth);
  if (!Number.isInteger(depth) && depth !== Infinity) throw new CtxpkgError('E_USAGE', `--depth must be a whole number, got ${opts.depth}`);
  const { readLock } = await import('../install/lockio.js');
  const { hasArtifact } = await import('../store.js');
  const { readVerified } = await import('../install/verified.js');
  const { sealKey } = await import('../install/seal.js');
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
    .command(program, 'ls', 'show the installed dependency tree')
    .alias('list')
    .option('--depth <n>', 'how many levels below the declared dependencies to show')
    .addHelpText('after', examples(['ctxpkg ls', 'ctxpkg ls --depth 0 --json']))
    .action(ctx.action(async (opts: { depth?: string }) => runLs(opts, ctx.deps)));
}

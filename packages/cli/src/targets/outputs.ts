/**
 * What `ctxpkg sync` writes for each target (spec/pack.md "Sync"), computed purely from the
 * merged graph and policy — nothing is written here:
 *
 * - `agents-md` → `AGENTS.md`, `claude-md` → `CLAUDE.md`: a managed block holding the always-loaded
 *   brief: the package index (name@version and item counts), pointers to `ctxpkg render` and the
 *   MCP tools, and the pinned nodes, compiled by the pack compiler in pinned-only mode within
 *   `context.sync.max_bytes` (default 4096) bytes for the whole block. `CLAUDE.md` is skipped
 *   when it already imports AGENTS.md (`@AGENTS.md` line) and the AGENTS.md target is enabled.
 * - `cursor` → `.cursor/rules/ctxpkg-<slug>.mdc` and `copilot` →
 *   `.github/instructions/ctxpkg-<slug>.instructions.md`, one file per installed package with
 *   deliverable nodes: frontmatter (`globs`/`alwaysApply`, `applyTo`) from the scopes of its nodes,
 *   then a managed block with that package's pack within `context.sync.file_max_bytes` bytes for
 *   the whole file. A package with any unscoped node applies everywhere.
 *
 * Packs in agent files are compiled with `stamp: false`, so files change only when content does.
 */
import { compilePack, computeScopes, CtxpkgError, STRUCTURAL_TYPES, type ContextConfig, type MergedGraph, type SyncTarget, type WorkspaceReader } from '@ctxpkg/format';
import { blockOverhead } from './blocks.js';

/** One file sync wants: a managed block inside a user file, or a whole generated file. */
export interface DesiredOutput {
  /** POSIX path relative to the project root. */
  path: string;
  target: SyncTarget;
  kind: 'block' | 'file';
  /** For `block`: the block body. For `file`: the frontmatter (without the block). */
  head: string;
  body: string;
}

const POINTER =
  'more: `ctxpkg render --focus <path|topic>` compiles a budgeted pack of everything installed; the ctxpkg MCP server (`ctxpkg mcp`) offers search_context, get_node, neighbors and render_pack';

/** File-name slug of a package name: `@acme/auth` → `acme__auth` (only `[a-z0-9._-]`). */
export function packageSlug(name: string): string {
  return name.replace(/^@/, '').replace('/', '__').toLowerCase().replace(/[^a-z0-9._-]/g, '-');
}

/** Deliverable node counts per package, sorted by package. */
function itemCounts(graph: MergedGraph): Map<string, number> {
  const m = new Map<string, number>();
  for (const n of graph.nodes) if (!STRUCTURAL_TYPES.has(n.type)) m.set(n.package, (m.get(n.package) ?? 0) + 1);
  return new Map([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Budget for a body given the whole-file cap and fixed overhead; `E_BUDGET` when none is left. */
function bodyBudget(cap: number, overhead: number, what: string): number {
  const left = cap - overhead;
  if (left <= 0) {
    throw new CtxpkgError('E_BUDGET', `${what}: the cap of ${cap} bytes leaves no room for content`, {
      hint: 'raise "context.sync.max_bytes" / "context.sync.file_max_bytes" in ctxpkg.json',
    });
  }
  return left;
}

/** The brief for AGENTS.md / CLAUDE.md (block body). Throws `E_BUDGET` when pinned nodes do not fit. */
export function briefBody(graph: MergedGraph, config: ContextConfig, now: string, read: WorkspaceReader | undefined): string {
  const counts = itemCounts(graph);
  const index = counts.size === 0 ? 'items: none installed' : `items: ${[...counts].map(([p, n]) => `${p} ${n}`).join(', ')}`;
  const pack = compilePack({
    graph,
    policy: config.pack,
    maxBytes: bodyBudget(config.sync.max_bytes, blockOverhead(), 'AGENTS.md block'),
    now,
    pinnedOnly: true,
    title: 'Installed context (ctxpkg)',
    notes: [index, POINTER],
    stamp: false,
    ...(read ? { read } : {}),
  });
  return pack.text;
}

function yamlString(s: string): string {
  return JSON.stringify(s);
}

/** Per-package files for the `cursor` and `copilot` targets. */
export function packageFiles(target: 'cursor' | 'copilot', graph: MergedGraph, config: ContextConfig, now: string, read: WorkspaceReader | undefined): DesiredOutput[] {
  const scopes = computeScopes(graph);
  const out: DesiredOutput[] = [];
  const versions = new Map(graph.inputs.map((i) => [i.package, i.version]));
  for (const pkg of itemCounts(graph).keys()) {
    const nodes = graph.nodes.filter((n) => n.package === pkg && !STRUCTURAL_TYPES.has(n.type));
    const globs = new Set<string>();
    let everywhere = false;
    for (const n of nodes) {
      const s = scopes.get(n.id);
      if (!s || s.length === 0) everywhere = true;
      else for (const g of s) globs.add(g);
    }
    const globList = [...globs].sort().join(',');
    const label = `${pkg}@${versions.get(pkg) ?? nodes[0]?.version ?? '?'}`;
    const head =
      target === 'cursor'
        ? ['---', `description: ${yamlString(`Installed context from ${label} (managed by ctxpkg sync)`)}`, `globs: ${everywhere ? '' : yamlString(globList)}`.trimEnd(), `alwaysApply: ${everywhere}`, '---', ''].join('\n')
        : ['---', `applyTo: ${yamlString(everywhere ? '**' : globList)}`, '---', ''].join('\n');
    const path = target === 'cursor' ? `.cursor/rules/ctxpkg-${packageSlug(pkg)}.mdc` : `.github/instructions/ctxpkg-${packageSlug(pkg)}.instructions.md`;
    const cap = config.sync.file_max_bytes;
    const pack = compilePack({
      graph,
      policy: config.pack,
      maxBytes: bodyBudget(cap, Buffer.byteLength(head, 'utf8') + blockOverhead() + 1, path),
      now,
      packages: [pkg],
      title: `Context from ${label} (ctxpkg)`,
      stamp: false,
      ...(read ? { read } : {}),
    });
    out.push({ path, target, kind: 'file', head, body: pack.text });
  }
  return out;
}

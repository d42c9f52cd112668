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
import { compilePack, computeScopes, CtxpkgError, isCtxpkgError, STRUCTURAL_TYPES, type ContextConfig, type MergedGraph, type PackInput, type SyncTarget, type WorkspaceReader } from '@ctxpkg/format';
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

/**
 * Compile the pack of one agent-file output within `cap` bytes for the whole output, `overhead`
 * of which are taken by markers (and frontmatter). Throws `E_BUDGET` naming the setting to change
 * — `context.sync.<setting>` in ctxpkg.json, its current value and the size needed (the pinned
 * nodes' `required_bytes` from the compiler plus `overhead`) — when even the frame and pinned
 * nodes do not fit (spec/pack.md §11).
 */
function compileWithin(what: string, setting: 'max_bytes' | 'file_max_bytes', cap: number, overhead: number, input: Omit<PackInput, 'maxBytes'>): string {
  try {
    return compilePack({ ...input, maxBytes: Math.max(1, cap - overhead) }).text;
  } catch (err) {
    if (!isCtxpkgError(err) || err.code !== 'E_BUDGET') throw err;
    const inner = Number(err.details?.required_bytes);
    const pinned = Number(err.details?.pinned ?? 0);
    const need = Number.isSafeInteger(inner) ? inner + overhead : undefined;
    const contents = pinned > 0 ? `its ${pinned} pinned ${pinned === 1 ? 'node' : 'nodes'} and header` : 'its header alone';
    throw new CtxpkgError(
      'E_BUDGET',
      `${what}: ${contents} need ${need ?? 'more than'} bytes, more than "context.sync.${setting}" in ctxpkg.json allows (currently ${cap})`,
      {
        hint: `set "context.sync.${setting}" in ctxpkg.json to at least ${need ?? cap + 1}${pinned > 0 ? ', or unpin nodes ("context.pins")' : ''}`,
        details: { setting: `context.sync.${setting}`, current: cap, required_bytes: need ?? null, pinned },
      },
    );
  }
}

/**
 * The brief for AGENTS.md / CLAUDE.md (block body): a pinned-only pack whose header says how many
 * of the installed items are pinned and that the rest are not in the block (spec/pack.md §8),
 * then the package index and the pointer to `ctxpkg render` / MCP. Throws `E_BUDGET` naming
 * `context.sync.max_bytes` when the pinned nodes do not fit, `E_NOT_FOUND` for a pin that names
 * nothing installed (`resolvePins`).
 */
export function briefBody(graph: MergedGraph, config: ContextConfig, now: string, read: WorkspaceReader | undefined, builtHere: readonly string[] = []): string {
  const counts = itemCounts(graph);
  const index = counts.size === 0 ? 'items: none installed' : `items: ${[...counts].map(([p, n]) => `${p} ${n}`).join(', ')}`;
  return compileWithin('AGENTS.md block', 'max_bytes', config.sync.max_bytes, blockOverhead(), {
    graph,
    policy: config.pack,
    now,
    pinnedOnly: true,
    title: 'Installed context (ctxpkg)',
    notes: [index, POINTER],
    stamp: false,
    ...(read ? { read, builtHere } : {}),
  });
}

function yamlString(s: string): string {
  return JSON.stringify(s);
}

/** Per-package files for the `cursor` and `copilot` targets. */
export function packageFiles(
  target: 'cursor' | 'copilot',
  graph: MergedGraph,
  config: ContextConfig,
  now: string,
  read: WorkspaceReader | undefined,
  builtHere: readonly string[] = [],
): DesiredOutput[] {
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
    const body = compileWithin(path, 'file_max_bytes', config.sync.file_max_bytes, Buffer.byteLength(head, 'utf8') + blockOverhead() + 1, {
      graph,
      policy: config.pack,
      now,
      packages: [pkg],
      title: `Context from ${label} (ctxpkg)`,
      stamp: false,
      ...(read ? { read, builtHere } : {}),
    });
    out.push({ path, target, kind: 'file', head, body });
  }
  return out;
}

/**
 * The three delivery tiers of `ctxpkg sync` (spec/pack.md §11 "Tiers"), decided once for every
 * target — selection decides WHAT reaches agents; target encodings only decide how each agent's
 * files spell it (ARCHITECTURE.md "Delivery: one selection, many encodings"). Pure.
 *
 * - always-on: every pinned node, and every unscoped node, as far as the always-on budget goes
 *   (pins first, then by priority; the compiler's order, spec/pack.md §5);
 * - path-scoped: unpinned nodes with a scope (from `paths:`, `globs:`, `applyTo:` or a scope given
 *   at `create`), grouped into rule sets — one per package and set of patterns — each written
 *   to the agents' own path-scoped rule files;
 * - on demand: everything else, through `ctxpkg render` and the MCP tools.
 *
 * This module only partitions; the budgets are applied by `compilePack` (with `include`), once
 * for the always-on block and once per rule set.
 */
import type { MergedGraph, MergedNode } from '../graph-types.js';
import { sha256Hex } from '../hash.js';
import { computeScopes, STRUCTURAL_TYPES } from './scope.js';

/** One path-scoped rule set: the unpinned nodes of one package that share one set of patterns. */
export interface RuleSet {
  package: string;
  version: string;
  /** Scope globs, sorted (UTF-16 order), de-duplicated. */
  patterns: string[];
  /** Source files of its nodes (`file_path`), sorted; may be empty. */
  sources: string[];
  /** Qualified ids of its nodes, sorted. */
  nodes: string[];
  /**
   * File-name stem, unique among the rule sets of one graph: `<package slug>--<first source's
   * base name slug>`, plus `-<6 hex of the patterns' SHA-256>` when two sets would share a stem.
   * Only `[a-z0-9._-]`.
   */
  slug: string;
}

/** File-name slug of a package name: `@acme/auth` → `acme__auth` (only `[a-z0-9._-]`). */
export function packageSlug(name: string): string {
  return name.replace(/^@/, '').replace('/', '__').toLowerCase().replace(/[^a-z0-9._-]/g, '-');
}

/** True for `-` and `.`, the characters trimmed from both ends of a source slug. */
const dashOrDot = (c: number): boolean => c === 45 || c === 46;

/**
 * Slug of a source file's base name without extension: `.claude/rules/API Rules.md` →
 * `api-rules` (at most 48 characters; `scoped` when nothing is left). The file path is package
 * text: `-` and `.` are trimmed from both ends by loops, not `/^[-.]+|[-.]+$/g`, which V8 retries
 * at every start in a run of them (a 200k-character run: 18 s per install). Linear in `path`.
 */
export function sourceSlug(path: string | undefined): string {
  if (!path) return 'scoped';
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.(md|mdc|markdown|txt|json)$/i, '').replace(/\.instructions$/i, '');
  const t = base.toLowerCase().replace(/[^a-z0-9._-]+/g, '-');
  let a = 0;
  let b = t.length;
  while (a < b && dashOrDot(t.charCodeAt(a))) a++;
  while (b > a && dashOrDot(t.charCodeAt(b - 1))) b--;
  const s = t.slice(a, Math.min(b, a + 48));
  return s === '' ? 'scoped' : s;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The path-scoped rule sets of `graph`: deliverable (non-structural) nodes that have a scope
 * (`computeScopes`) and are not in `pinned`, grouped by package and pattern set. Sorted by
 * package, then patterns. Deterministic for any node/edge order.
 */
export function ruleSetsOf(graph: Pick<MergedGraph, 'nodes' | 'edges'>, pinned: ReadonlySet<string>, scopes: ReadonlyMap<string, string[]> = computeScopes(graph)): RuleSet[] {
  const groups = new Map<string, { pkg: string; version: string; patterns: string[]; nodes: MergedNode[] }>();
  for (const n of graph.nodes) {
    if (STRUCTURAL_TYPES.has(n.type) || pinned.has(n.id)) continue;
    const s = scopes.get(n.id);
    if (!s || s.length === 0) continue;
    const patterns = [...new Set(s)].sort(cmp);
    const key = `${n.package}\u0000${patterns.join('\n')}`;
    const g = groups.get(key);
    if (g) g.nodes.push(n);
    else groups.set(key, { pkg: n.package, version: n.version, patterns, nodes: [n] });
  }
  const sets = [...groups.values()]
    .map((g) => {
      const sources = [...new Set(g.nodes.map((n) => n.file_path).filter((p): p is string => typeof p === 'string' && p !== ''))].sort(cmp);
      return { package: g.pkg, version: g.version, patterns: g.patterns, sources, nodes: g.nodes.map((n) => n.id).sort(cmp), slug: `${packageSlug(g.pkg)}--${sourceSlug(sources[0])}` };
    })
    .sort((a, b) => cmp(a.package, b.package) || cmp(a.patterns.join('\n'), b.patterns.join('\n')));
  const count = new Map<string, number>();
  for (const s of sets) count.set(s.slug, (count.get(s.slug) ?? 0) + 1);
  for (const s of sets) if ((count.get(s.slug) ?? 0) > 1) s.slug = `${s.slug}-${sha256Hex(s.patterns.join('\n')).slice(0, 6)}`;
  return sets;
}

/**
 * Membership test for the always-on tier: pinned nodes, and deliverable nodes without a scope.
 * Pass it as `include` to `compilePack` for the always-on block.
 */
export function alwaysOnFilter(pinned: ReadonlySet<string>, scopes: ReadonlyMap<string, string[]>): (node: MergedNode) => boolean {
  return (n) => pinned.has(n.id) || (scopes.get(n.id)?.length ?? 0) === 0;
}

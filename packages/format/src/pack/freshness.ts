/**
 * Freshness of node provenance against the workspace (spec/pack.md §6 "Freshness").
 *
 * A node is checkable when it has `file_path` (a safe relative POSIX path), 1-based inclusive
 * `line_start` ≤ `line_end`, and `source = "sha256:<64 hex>"`. The file is split by the provenance
 * rule of spec/format.md (leading BOM dropped, split at LF, one trailing CR removed per line),
 * lines `line_start..line_end` are joined with "\n" and hashed:
 *  - `fresh`: the hash matches; `stale`: it does not, or the range is past the end of the file;
 *  - `absent`: the reader says the file does not exist (`null`);
 *  - `unchecked`: not checkable, not in scope of the check, or the reader did not look.
 *
 * Which packages are checked (`freshness` policy): `all`, `none`, a list of package names, or
 * `auto` — a package is checked when it is known to be built here (`builtHere`: names the caller
 * recorded earlier, spec/pack.md §6 "Evidence") or at least one of its checkable nodes is `fresh`
 * now. Packages built elsewhere (whose files do not exist here or differ everywhere) are left
 * unchecked instead of being reported stale wholesale. `packagesBuiltHere` gives the names a
 * caller may record: packages with strong evidence (more than half of their checkable nodes fresh).
 */
import { sha256Hex } from '../hash.js';
import type { MergedGraph, MergedNode } from '../graph-types.js';
import type { Freshness, FreshnessScope, WorkspaceReader } from './types.js';

/**
 * True when `s` is `sha256:` and 64 lowercase hex digits (`/^sha256:[0-9a-f]{64}$/`), by
 * character codes: a render asks it of every node twice (the evidence pass and the resolver), and
 * the expression took ~300 ns a node on a 50k-node graph (bench:render's process row).
 */
export function isSourceHash(s: string): boolean {
  if (s.length !== 71 || !s.startsWith('sha256:')) return false;
  for (let i = 7; i < 71; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** The path `safePath` was last asked about, and its verdict (nodes of one file come in runs). */
let lastPath: string | undefined;
let lastPathSafe = false;

/** `isSafeRelativePath(p)`, remembered for the path asked last. */
function safePath(p: string): boolean {
  if (p !== lastPath) {
    lastPathSafe = isSafeRelativePath(p);
    lastPath = p;
  }
  return lastPathSafe;
}

/** True for a relative POSIX path without `..`, empty, `.` or drive components. */
export function isSafeRelativePath(p: string): boolean {
  if (p === '' || p.startsWith('/') || p.includes('\\') || p.includes('\0') || /^[A-Za-z]:/.test(p)) return false;
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/** Split file text into lines by the provenance rule. */
export function provenanceLines(text: string): string[] {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = t.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    if (l.endsWith('\r')) lines[i] = l.slice(0, -1);
  }
  return lines;
}

/** `sha256:<hex>` of lines `start..end` (1-based inclusive) joined with "\n". */
export function linesHash(lines: readonly string[], start: number, end: number): string {
  return 'sha256:' + sha256Hex(lines.slice(start - 1, end).join('\n'));
}

function checkable(n: MergedNode): boolean {
  return (
    typeof n.file_path === 'string' &&
    safePath(n.file_path) &&
    Number.isSafeInteger(n.line_start) &&
    Number.isSafeInteger(n.line_end) &&
    (n.line_start as number) >= 1 &&
    (n.line_end as number) >= (n.line_start as number) &&
    typeof n.source === 'string' &&
    isSourceHash(n.source)
  );
}

/** Memoized provenance lines per path (`null`: no such file; `undefined`: the reader did not look). Calls `read` at most once per path. */
function lineCache(read: WorkspaceReader): (path: string) => string[] | null | undefined {
  const files = new Map<string, string[] | null | undefined>();
  return (path) => {
    if (files.has(path)) return files.get(path);
    const text = read(path);
    const v = typeof text === 'string' ? provenanceLines(text) : text;
    files.set(path, v);
    return v;
  };
}

/** Own status of a checkable node from its file's lines; `undefined` when the reader did not look. */
function judge(n: MergedNode, lines: string[] | null | undefined): Freshness | undefined {
  if (lines === undefined) return undefined;
  if (lines === null) return 'absent';
  if ((n.line_end as number) > lines.length) return 'stale';
  return linesHash(lines, n.line_start as number, n.line_end as number) === n.source ? 'fresh' : 'stale';
}

/**
 * Freshness per qualified node id for `nodes` (only checkable nodes in checked packages get an
 * entry other than `unchecked`; nodes without an entry are `unchecked`). `builtHere`: package
 * names checked under `auto` even when none of their nodes is fresh (ignored by other scopes).
 * The reader is called at most once per path. Throws nothing.
 */
export function checkFreshness(
  nodes: readonly MergedNode[],
  read: WorkspaceReader | undefined,
  scope: FreshnessScope,
  builtHere: readonly string[] = [],
): Map<string, Freshness> {
  const out = new Map<string, Freshness>();
  if (!read || scope === 'none') return out;
  const linesOf = lineCache(read);
  const listed = Array.isArray(scope) ? new Set(scope) : undefined;
  const byPackage = new Map<string, Array<[string, Freshness]>>();
  for (const n of nodes) {
    if (listed && !listed.has(n.package)) continue;
    if (!checkable(n)) continue;
    const f = judge(n, linesOf(n.file_path as string));
    if (f === undefined) continue;
    const list = byPackage.get(n.package) ?? [];
    list.push([n.id, f]);
    byPackage.set(n.package, list);
  }
  const known = new Set(builtHere);
  for (const [pkg, list] of byPackage) {
    if (scope === 'auto' && !known.has(pkg) && !list.some(([, f]) => f === 'fresh')) continue;
    for (const [id, f] of list) out.set(id, f);
  }
  return out;
}

/**
 * The lazy form of `checkFreshness`: `resolve(node)` equals
 * `checkFreshness(nodes, read, scope, builtHere).get(node.id) ?? 'unchecked'` for every node of
 * `nodes`, but reads and hashes only what that answer needs — the node's own lines and, under
 * `auto` for a package not in `builtHere`, its package's nodes up to the first fresh one (each
 * answer is remembered). Used by the pack
 * compiler when freshness cannot omit a node (policy `stale: "flag"`), so only considered nodes
 * are checked. Throws nothing.
 */
export function freshnessResolver(
  nodes: readonly MergedNode[],
  read: WorkspaceReader | undefined,
  scope: FreshnessScope,
  builtHere: readonly string[] = [],
): (node: MergedNode) => Freshness {
  if (!read || scope === 'none') return () => 'unchecked';
  const linesOf = lineCache(read);
  const listed = Array.isArray(scope) ? new Set(scope) : undefined;
  /** Own status, before the package rule; `undefined` = not judged. */
  const own = new Map<MergedNode, Freshness | undefined>();
  const ownOf = (n: MergedNode): Freshness | undefined => {
    if (own.has(n)) return own.get(n);
    const f = (!listed || listed.has(n.package)) && checkable(n) ? judge(n, linesOf(n.file_path as string)) : undefined;
    own.set(n, f);
    return f;
  };
  let byPackage: Map<string, MergedNode[]> | undefined;
  const evidence = new Map<string, boolean>(builtHere.map((p) => [p, true]));
  const packageChecked = (pkg: string): boolean => {
    let v = evidence.get(pkg);
    if (v === undefined) {
      if (!byPackage) {
        // Nodes of one package come in runs (merged graphs are sorted by id): the map is asked
        // once per run, not once per node (its keys are fresh strings V8 hashes on first use).
        const groups = (byPackage = new Map<string, MergedNode[]>());
        let runPkg: string | undefined;
        let run: MergedNode[] = [];
        for (const n of nodes) {
          if (n.package !== runPkg) {
            runPkg = n.package;
            const l = groups.get(runPkg);
            if (l) run = l;
            else groups.set(runPkg, (run = []));
          }
          run.push(n);
        }
      }
      // A node whose file is absent or was not read cannot be fresh: once a checkable node (the
      // only kind whose file is read, as `ownOf` reads it) finds no lines for its path, the
      // nodes of that path are passed over without judging each (a package built elsewhere).
      let noLines: string | undefined;
      v = false;
      for (const m of byPackage.get(pkg) ?? []) {
        const path = m.file_path;
        if (path !== undefined && path === noLines) continue;
        if (!own.has(m) && (!listed || listed.has(m.package)) && checkable(m) && !Array.isArray(linesOf(path as string))) {
          noLines = path;
          continue;
        }
        if (ownOf(m) === 'fresh') {
          v = true;
          break;
        }
      }
      evidence.set(pkg, v);
    }
    return v;
  };
  return (n) => {
    const f = ownOf(n);
    if (f === undefined) return 'unchecked';
    if (scope === 'auto' && !packageChecked(n.package)) return 'unchecked';
    return f;
  };
}

/**
 * Packages of `nodes` with strong evidence of being built from this workspace: at least one
 * checkable node, and more than half of the package's checkable nodes `fresh` (spec/pack.md §6
 * "Evidence"). One fresh node is enough to check a package now (`auto`); recording it for later —
 * when every node may have changed — needs more, so that a package built elsewhere whose single
 * boilerplate section happens to match a file here is not checked forever. Returns names sorted
 * by UTF-16 code units; `skip` names are not examined (already recorded). Reads each path at most
 * once. Throws nothing.
 */
export function packagesBuiltHere(nodes: readonly MergedNode[], read: WorkspaceReader | undefined, skip: readonly string[] = []): string[] {
  if (!read) return [];
  const skipped = new Set(skip);
  const linesOf = lineCache(read);
  const tally = new Map<string, { fresh: number; checkable: number }>();
  // Nodes of one package come in runs (merged graphs are sorted by id): the set and the map are
  // asked once per run (their keys are fresh strings V8 hashes on first use), not once per node.
  let runPkg: string | undefined;
  let runSkipped = false;
  let t: { fresh: number; checkable: number } | undefined;
  // A node of a file that is absent is `absent` when checkable: it counts only for a package that
  // has a fresh node (the tally of the others is never read). Once a checkable node found its file
  // absent, the nodes of that path are set aside and judged only if their package turns out to
  // have one (a package built elsewhere: its nodes are not checked one by one).
  let absentPath: string | undefined;
  const setAside: MergedNode[] = [];
  for (const n of nodes) {
    if (n.package !== runPkg) {
      runPkg = n.package;
      runSkipped = skipped.has(runPkg);
      t = tally.get(runPkg);
    }
    if (runSkipped) continue;
    if (n.file_path !== undefined && n.file_path === absentPath) {
      setAside.push(n);
      continue;
    }
    if (!checkable(n)) continue;
    const lines = linesOf(n.file_path as string);
    if (lines === null) absentPath = n.file_path;
    const f = judge(n, lines);
    if (f === undefined) continue;
    if (t === undefined) tally.set(runPkg, (t = { fresh: 0, checkable: 0 }));
    t.checkable++;
    if (f === 'fresh') t.fresh++;
  }
  if (setAside.length > 0 && [...tally.values()].some((x) => x.fresh > 0)) {
    for (const n of setAside) {
      const x = tally.get(n.package);
      if (x !== undefined && x.fresh > 0 && checkable(n)) x.checkable++;
    }
  }
  return [...tally]
    .filter(([, t]) => t.fresh > 0 && t.fresh * 2 > t.checkable)
    .map(([p]) => p)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The installed packages among `names` (spec/pack.md §6 "Evidence"), sorted by UTF-16 code units
 * and deduplicated, so the receipt and the freshness check depend only on what is installed.
 */
export function installedBuiltHere(graph: MergedGraph, names: readonly string[] | undefined): string[] {
  if (!names || names.length === 0) return [];
  const installed = new Set(graph.inputs.map((i) => i.package));
  for (const n of graph.nodes) installed.add(n.package);
  return [...new Set(names.filter((p) => installed.has(p)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

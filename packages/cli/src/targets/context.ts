/**
 * What `render`, `sync` and `mcp` need from the project: the root (nearest ancestor with
 * ctxpkg.json), the `context` policy, the merged graph `.ctxpkg/graph/merged.json`, a
 * workspace reader for freshness checks (spec/pack.md "Inputs"), and the packages known to be
 * built here (spec/pack.md §6 "Evidence", built-here.ts) — the same inputs for all three.
 *
 * This is the one place every deliverer reads the merged graph, so it is where derived state is
 * checked (issue 11 item 1): the graph is delivered only when the sealed record of this user's
 * install (`.ctxpkg/verified.json`, install/verified.ts + seal.ts) binds the SHA-256 of the exact
 * text read. A merged.json committed to a repository, copied from another user, or edited after
 * install is refused with `E_UNSEALED` before it is parsed; `ctxpkg install` rebuilds it from the
 * verified store (offline when the store is vouched for).
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { MergedGraph } from '@ctxpkg/format';
import { checkMergedGraph } from '@ctxpkg/format/pack/graph-check';
import { isSafeRelativePath } from '@ctxpkg/format/pack/freshness';
import { parseContextConfig, type ContextConfig } from '@ctxpkg/format/pack/policy';
import type { WorkspaceReader } from '@ctxpkg/format/pack/types';
import type { CliDeps } from '../deps.js';
import { readBufferIfExists } from '../fsutil.js';
import { sealKey } from '../install/seal.js';
import { mergedBytesSealed } from '../install/verified.js';
import { parseLargeJsonObject } from '../jsonfile.js';
import { PROJECT_FILES } from '../paths.js';
import { findProjectRoot, readManifest } from '../project.js';
import { checkDerivedDirs } from '../project-dirs.js';
import { blankLines, inCtxpkgDir, looksGenerated, managedBlockRanges } from '../importers/generated.js';
import { builtHereFor } from './built-here.js';
import { ownScopes, trustDecisions, trustedSet, type TrustDecision } from './trust.js';

/** Files larger than this are not read for freshness (their nodes stay unchecked). */
export const MAX_WORKSPACE_FILE_BYTES = 16 * 1024 * 1024;

export interface ProjectContext {
  root: string;
  config: ContextConfig;
  /** The merged graph; an empty graph when nothing is installed (`installed` false). */
  graph: MergedGraph;
  installed: boolean;
  read: WorkspaceReader;
  /**
   * Installed-or-recorded package names known to be built from this workspace: the compiler's
   * `builtHere` input (checked under `freshness: "auto"` even when no node is fresh any more).
   * `[]` unless loaded with `evidence`.
   */
  builtHere: string[];
  /**
   * Trust decision per installed package (trust.ts): which are delivered as instructions
   * (`trusted`), and why a listed one stays fenced.
   */
  trust: TrustDecision[];
  /** The packages delivered as instructions (`trust` where trusted). */
  trusted: ReadonlySet<string>;
  /** Scopes this project binds or this user publishes to (trust.ts `ownScopes`); absent = none. */
  ownScopes?: readonly string[];
}

/**
 * `read`: use the sealed record and what the workspace shows now; `record`: also add newly
 * observed packages to the record (render, sync). Without it `builtHere` is `[]`.
 */
export type EvidenceMode = 'read' | 'record';

/** An empty merged graph (nothing installed). */
export function emptyGraph(): MergedGraph {
  return { format: 'ctxpkg-merged-v1', inputs: [], nodes: [], edges: [], conflicts: [] };
}

/**
 * Open the project around `deps.cwd`. Throws `E_NOT_FOUND` when there is no ctxpkg.json, or —
 * with `requireGraph` — when nothing is installed; `E_UNSEALED` when merged.json exists but is not
 * the text this user's install built (the seal opens with the key under `deps.env`/`deps.homeDir`);
 * `E_INVALID_JSON`/`E_STRUCTURE` for broken files; `E_UNSAFE_PATH` when `.ctxpkg/` or its
 * `graph/` is a symbolic link (project-dirs.ts). With `evidence`, `builtHere` is filled.
 */
export function loadProjectContext(
  deps: Pick<CliDeps, 'cwd' | 'env' | 'homeDir'>,
  opts: { requireGraph: boolean; evidence?: EvidenceMode },
): ProjectContext {
  const { root, exists } = findProjectRoot(deps.cwd);
  if (!exists) {
    throw new CtxpkgError('E_NOT_FOUND', `no ${PROJECT_FILES.manifest} in ${deps.cwd} or any parent directory`, {
      hint: 'run `ctxpkg init` in the project root, then `ctxpkg install`',
    });
  }
  checkDerivedDirs(root);
  const manifest = readManifest(root);
  const config = parseContextConfig(manifest.extra.context);
  const path = join(root, PROJECT_FILES.mergedGraph);
  // One read: the seal is checked on these bytes, and the graph parsed from their text.
  const bytes = readBufferIfExists(path);
  if (bytes === undefined && opts.requireGraph) {
    throw new CtxpkgError('E_NOT_FOUND', `no installed context: ${PROJECT_FILES.mergedGraph} does not exist`, {
      hint: 'run `ctxpkg install` first',
    });
  }
  if (bytes !== undefined && !mergedBytesSealed(root, sealKey(deps, false), bytes)) {
    throw new CtxpkgError('E_UNSEALED', `${PROJECT_FILES.mergedGraph} is not the merged graph your \`ctxpkg install\` built (committed to the repository, copied from another user or edited since): refusing to deliver it`, {
      hint: 'run `ctxpkg install` to rebuild it from the verified packages',
      details: { path: PROJECT_FILES.mergedGraph },
    });
  }
  const graph =
    bytes === undefined
      ? emptyGraph()
      : checkMergedGraph(parseLargeJsonObject(bytes.toString('utf8'), PROJECT_FILES.mergedGraph), PROJECT_FILES.mergedGraph);
  const trust = trustDecisions(root, manifest.trust.instructions, graph, deps);
  const project: ProjectContext = { root, config, graph, installed: bytes !== undefined, read: workspaceReader(root), builtHere: [], trust, trusted: trustedSet(trust), ownScopes: ownScopes(manifest.registries, deps) };
  if (opts.evidence && project.installed) project.builtHere = builtHereFor(project, deps, { record: opts.evidence === 'record' });
  return project;
}

/**
 * A reader of workspace files for freshness: `path` is POSIX and relative to `root`. Returns the
 * UTF-8 text, `null` when the file does not exist (or is not a regular file, or is ctxpkg's own
 * output: under `.ctxpkg/`, or a generated rule file), with the lines of managed blocks blanked
 * (`importers/generated.ts`: the same rule that keeps `create` from republishing them), and `undefined`
 * (= do not judge) for unsafe paths, paths that resolve outside the root through a symlink,
 * files over 16 MiB and unreadable files.
 */
export function workspaceReader(root: string): WorkspaceReader {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    realRoot = root;
  }
  return (path: string) => {
    if (!isSafeRelativePath(path)) return undefined;
    const full = join(root, ...path.split('/'));
    try {
      const rel = relative(realRoot, realpathSync(full));
      if (rel === '' || rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel)) return undefined;
      const st = statSync(full);
      if (!st.isFile()) return null;
      if (st.size > MAX_WORKSPACE_FILE_BYTES) return undefined;
      // ctxpkg's own output is never source: a generated rule file is absent, and the lines of a
      // managed block are blank (line numbers kept). Otherwise the block sync wrote into a
      // consumer's AGENTS.md (which holds the nodes' text) reads as the package's source file,
      // and every delivered item is judged "built here" and then STALE against it.
      if (inCtxpkgDir(path)) return null;
      const text = readFileSync(full, 'utf8');
      if (looksGenerated(path, text)) return null;
      return blankLines(text, managedBlockRanges(text));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      return undefined;
    }
  };
}

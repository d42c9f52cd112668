/**
 * The MCP server's view of the project: policy, merged graph and search index, reloaded when
 * `.ctxpkg/graph/merged.json`, `ctxpkg.json` or `.ctxpkg/built-here.json` changes (checked by
 * mtime/size on each request). The built-here record is read, never written, here (§6 "Evidence").
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { buildSearchIndex, parseNow, type SearchIndex } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';
import { PROJECT_FILES } from '../paths.js';
import { findProjectRoot } from '../project.js';
import { BUILT_HERE_FILE } from '../targets/built-here.js';
import { loadProjectContext, type ProjectContext } from '../targets/context.js';

export interface McpState {
  project: ProjectContext;
  index: SearchIndex;
  /** RFC 3339 time the index was built for. */
  now: string;
}

function stamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return 'absent';
  }
}

/** A loader that caches the state until the project files change. Throws like `loadProjectContext`. */
export function stateLoader(deps: Pick<CliDeps, 'cwd' | 'clock' | 'env' | 'homeDir'>): () => McpState {
  let cached: { key: string; state: McpState } | undefined;
  return () => {
    const probe = loadProjectRootOnly(deps, cached?.state.project.root);
    const key = `${stamp(join(probe, PROJECT_FILES.mergedGraph))}|${stamp(join(probe, PROJECT_FILES.manifest))}|${stamp(join(probe, BUILT_HERE_FILE))}`;
    if (cached && cached.key === key) return cached.state;
    const project = loadProjectContext(deps, { requireGraph: false, evidence: 'read' });
    const now = parseNow(deps.clock().toISOString());
    const index = buildSearchIndex(project.graph, { policy: project.config.pack, nowMs: now.ms, read: project.read, builtHere: project.builtHere });
    cached = { key, state: { project, index, now: now.iso } };
    return cached.state;
  };
}

function loadProjectRootOnly(deps: Pick<CliDeps, 'cwd'>, known: string | undefined): string {
  return known ?? findProjectRoot(deps.cwd).root;
}

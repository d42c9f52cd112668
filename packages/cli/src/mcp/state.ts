/**
 * The MCP server's view of the project: policy, merged graph, trust decisions and search index,
 * reloaded when one of its inputs changes (checked by mtime/size on each request): the merged graph,
 * its seal (`.ctxpkg/verified.json`: an install writes the graph first, so a reload between the two
 * writes sees an unsealed graph and must retry once the seal lands), `ctxpkg.json` (policy, pins,
 * trust), `ctxpkg.lock` (pinned signers decide trust), `.ctxpkg/built-here.json` and
 * `.ctxpkg/pins.json` (the texts broken pins are ranked against). The built-here and pins records
 * are read, never written, here (spec/pack.md §6 "Evidence", §2 "Pins").
 *
 * Which project: the caller passes the directory to look it up from (`--project`, else the first
 * MCP root that lies in a project, else the working directory; server.ts), so a server started
 * outside a project still answers `initialize` and reports the problem in each tool result.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CtxpkgError } from '@ctxpkg/format/errors';
import { buildSearchIndex, parseNow, type SearchIndex } from '@ctxpkg/format/pack';
import type { CliDeps } from '../deps.js';
import { PROJECT_FILES } from '../paths.js';
import { findProjectRoot } from '../project.js';
import { VERIFIED_FILE } from '../install/verified.js';
import { BUILT_HERE_FILE } from '../targets/built-here.js';
import { loadProjectContext, type ProjectContext } from '../targets/context.js';
import { PINS_RECORD, readPinTexts } from '../targets/pins-record.js';

export interface McpState {
  project: ProjectContext;
  index: SearchIndex;
  /** RFC 3339 time the index was built for (drives expiry; never written into an answer). */
  now: string;
  /** The text each node pin last delivered (`.ctxpkg/pins.json`): ranks a broken pin's successors as the CLI does. */
  pinTexts: ReadonlyMap<string, string>;
}

function stamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return 'absent';
  }
}

/** Files whose change reloads the state (see the module docstring), relative to the project root. */
const INPUTS = [PROJECT_FILES.mergedGraph, VERIFIED_FILE, PROJECT_FILES.manifest, PROJECT_FILES.lockfile, BUILT_HERE_FILE, PINS_RECORD];

/** The change stamp of a project's delivery inputs (`INPUTS`: mtime and size of each). */
export function projectStamp(root: string): string {
  return [root, ...INPUTS.map((f) => stamp(join(root, f)))].join('|');
}

/**
 * A loader that caches the state until the project files change. `dir()` is where the project is
 * looked up from (the nearest ctxpkg.json at or above it; default `deps.cwd`). Throws `E_NOT_FOUND` naming that
 * directory and how to point the server at a project, else like `loadProjectContext`.
 */
export function stateLoader(deps: Pick<CliDeps, 'cwd' | 'clock'> & Partial<Pick<CliDeps, 'env' | 'homeDir'>>, dir: () => string = () => deps.cwd): () => McpState {
  let cached: { key: string; state: McpState } | undefined;
  return () => {
    const from = dir();
    const { root, exists } = findProjectRoot(from);
    if (!exists) {
      throw new CtxpkgError('E_NOT_FOUND', `no ${PROJECT_FILES.manifest} in ${from} or any parent directory, so there is no installed context to serve`, {
        hint: 'start `ctxpkg mcp` in the project directory, pass `--project <dir>`, or use an MCP host that sends its workspace as roots',
      });
    }
    const key = projectStamp(root);
    if (cached && cached.key === key) return cached.state;
    const project = loadProjectContext({ env: deps.env ?? {}, homeDir: deps.homeDir ?? '', cwd: root }, { requireGraph: false, evidence: 'read' });
    const now = parseNow(deps.clock().toISOString());
    const index = buildSearchIndex(project.graph, { policy: project.config.pack, nowMs: now.ms, read: project.read, builtHere: project.builtHere });
    cached = { key, state: { project, index, now: now.iso, pinTexts: readPinTexts(root) } };
    return cached.state;
  };
}

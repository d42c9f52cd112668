/**
 * `.ctxpkg/built-here.json`: the packages this project has shown evidence of being built from
 * (spec/pack.md §6 "Evidence"), sealed to the user (install/seal.ts) like every other derived
 * file ctxpkg trusts without recomputing it.
 *
 * Why: under `freshness: "auto"` a package is checked when one of its nodes is fresh now. That
 * evidence disappears exactly when it matters — after the source file was deleted, or edited
 * everywhere — so the package's stale and absent nodes went unreported. The first time render,
 * sync (including the automatic sync after install) or the MCP server sees strong evidence (more
 * than half of a package's checkable nodes fresh, `packagesBuiltHere`), the name is recorded here
 * by render and sync, and from then on the package is checked under `auto` whatever its files
 * look like. The MCP server reads and observes but does not write (it is a read-only server).
 *
 * Trust: the record opens only under this user's key, so a record committed to a repository (or
 * edited) is ignored — it cannot make ctxpkg check, flag or omit someone's package. Names are
 * recorded only from a merged graph this user's install built (`mergedGraphSealed`): a
 * merged.json committed to a repository could otherwise name any package "built here". Losing the key
 * (new machine, fresh clone) loses the record; the next render/sync observes again while the files
 * still match. Without a key (user dir not writable) nothing is recorded.
 *
 * Body: `{"packages":[names sorted by UTF-16 code units]}`. Names are kept after an uninstall, so
 * reinstalling a package built here keeps the check; the compiler ignores names not installed.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { MergedGraph } from '@ctxpkg/format';
import { packagesBuiltHere } from '@ctxpkg/format/pack/freshness';
import type { WorkspaceReader } from '@ctxpkg/format/pack/types';
import type { CliDeps } from '../deps.js';
import { writeFileAtomic } from '../fsutil.js';
import { openSealed, sealKey, sealText } from '../install/seal.js';
import { mergedGraphSealed } from '../install/verified.js';
import { PROJECT_FILES } from '../paths.js';

const KIND = 'freshness-built-here';
/** Path of the record relative to the project root. */
export const BUILT_HERE_FILE = join(PROJECT_FILES.dir, 'built-here.json');
/** At most this many names are kept (a record is per project; packages built here are few). */
const MAX_NAMES = 10_000;

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Largest record read, in bytes: `MAX_NAMES` names of at most 214 characters, JSON-escaped and
 * sealed, stay far below it. A larger file is not a record this code wrote.
 */
export const MAX_RECORD_BYTES = 8 * 1024 * 1024;

/**
 * The record's text, or `undefined` for anything but a regular file of at most
 * `MAX_RECORD_BYTES` bytes at that path: absent, a directory, a symlink (`O_NOFOLLOW`: a
 * committed link to another user's file or to `/dev/zero` is never followed), a FIFO or device
 * (`O_NONBLOCK`: opening a FIFO does not wait for a writer), unreadable. Never throws.
 */
function readRecordText(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_RECORD_BYTES) return undefined;
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The recorded names; an absent, unsealed, edited or malformed record is empty, and so is
 * anything at the path that is not a regular file within `MAX_RECORD_BYTES` (`readRecordText`).
 * Never throws.
 */
export function readBuiltHere(root: string, key: Buffer | undefined): string[] {
  const body = openSealed(key, KIND, readRecordText(join(root, BUILT_HERE_FILE)));
  if (body === undefined) return [];
  try {
    const o = JSON.parse(body) as { packages?: unknown };
    if (!Array.isArray(o.packages) || !o.packages.every((p) => typeof p === 'string')) return [];
    return [...new Set(o.packages as string[])].sort(cmp);
  } catch {
    return [];
  }
}

/** Write the record sealed under `key` (sorted, deduplicated, atomically). */
export function writeBuiltHere(root: string, key: Buffer, names: readonly string[]): void {
  const packages = [...new Set(names)].sort(cmp).slice(0, MAX_NAMES);
  writeFileAtomic(join(root, BUILT_HERE_FILE), sealText(key, KIND, JSON.stringify({ packages })));
}

export interface BuiltHereOptions {
  /** Record newly observed packages (render, sync); false for read-only callers (mcp, dry runs). */
  record: boolean;
}

/**
 * The `builtHere` input of the pack compiler for this project (spec/pack.md §6 "Evidence"): the
 * recorded names plus the installed packages that show strong evidence now, sorted. Observes only
 * under `freshness: "auto"` (the only scope that uses it; `[]` otherwise) and only packages not
 * yet recorded. With `record`, newly observed names are added to the sealed record when the
 * merged graph is sealed to this user (so the user key exists: install made it); a failure to
 * write is ignored — the evidence is then used for this run only.
 * Reads workspace files through `read` (the project's freshness reader). Never throws.
 */
export function builtHereFor(
  project: { root: string; graph: MergedGraph; read: WorkspaceReader; config: { pack: { freshness: unknown } } },
  deps: Partial<Pick<CliDeps, 'env' | 'homeDir'>>,
  opts: BuiltHereOptions,
): string[] {
  if (project.config.pack.freshness !== 'auto') return [];
  const env = deps.env && deps.homeDir !== undefined ? { env: deps.env, homeDir: deps.homeDir } : undefined;
  const key = env ? sealKey(env, false) : undefined;
  const recorded = readBuiltHere(project.root, key);
  const observed = packagesBuiltHere(project.graph.nodes, project.read, recorded);
  if (observed.length > 0 && opts.record && key && mergedGraphSealed(project.root, key)) {
    try {
      writeBuiltHere(project.root, key, [...readBuiltHere(project.root, key), ...recorded, ...observed]);
    } catch {
      /* not kept: used for this run only */
    }
  }
  return [...new Set([...recorded, ...observed])].sort(cmp);
}

/**
 * Shared rules of the `ctxpkg registry` admin subcommands (spec/registry.md "Bootstrap and
 * administration"): which data directory they work on, and the hints their errors carry.
 *
 * - Every admin subcommand except `serve` works only on an existing registry: the data directory
 *   must exist and hold the registry database (`registry.sqlite`). A typo in `--data` must not
 *   silently create an empty registry and report "no namespaces". `serve` creates a new one.
 * - Errors from the registry's admin functions that come without a hint get one naming the next
 *   command to run, with the data directory as the user gave it.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format/errors';
import { RESERVED_NAMESPACES, validateNamespaceClaim } from '@ctxpkg/format/names';
import type { CliDeps } from '../deps.js';

/** The file that makes a directory a registry data directory (packages/registry/src/store/sqlite.ts). */
export const REGISTRY_DB_FILE = 'registry.sqlite';

/** A data directory: the absolute path and the text to show in hints (`--data` as given). */
export interface DataDir {
  path: string;
  shown: string;
}

/** The data directory from `--data` or `CTXPKG_REGISTRY_DATA`, absolute. Throws `E_USAGE`. */
export function dataDirOf(opt: string | undefined, deps: Pick<CliDeps, 'env' | 'cwd'>): string {
  const d = opt ?? deps.env.CTXPKG_REGISTRY_DATA;
  if (!d || d.trim() === '') {
    // Every caller also takes --db (new-user 2 item 21): name both stores.
    throw new CtxpkgError('E_USAGE', 'no registry store: pass --data <dir> (SQLite data directory) or --db <postgres-url>', {
      hint: 'or set CTXPKG_REGISTRY_DATA / CTXPKG_REGISTRY_DB; the namespace, token, key, visibility and events commands also take --registry URL (administer remotely)',
    });
  }
  return resolve(deps.cwd, d);
}

/**
 * The data directory of an existing registry (every admin subcommand but `serve`). Throws
 * `E_USAGE` (none given) or `E_NOT_FOUND` (missing, not a directory, or no `registry.sqlite`).
 */
export function existingDataDir(opt: string | undefined, deps: Pick<CliDeps, 'env' | 'cwd'>): DataDir {
  const path = dataDirOf(opt, deps);
  const shown = opt ?? deps.env.CTXPKG_REGISTRY_DATA ?? path;
  const create = `create a registry there by starting \`ctxpkg registry serve --data ${shown}\` once, or check --data / CTXPKG_REGISTRY_DATA`;
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new CtxpkgError('E_NOT_FOUND', `no registry data directory at ${path}`, { hint: create });
  }
  if (!isDir) throw new CtxpkgError('E_NOT_FOUND', `${path} is not a directory`, { hint: create });
  if (!existsSync(join(path, REGISTRY_DB_FILE))) {
    throw new CtxpkgError('E_NOT_FOUND', `${path} is not a registry data directory (no ${REGISTRY_DB_FILE})`, { hint: create });
  }
  return { path, shown };
}

/** Where an admin command acted: a data directory (local), or `{ registry }` (remote, `--registry URL`). */
export type AdminWhere = DataDir | { registry: string };

/**
 * The same error with a hint when it has none: what to run next for `E_EXISTS`,
 * `E_RESERVED_NAMESPACE` and the `E_NOT_FOUND`s of namespaces, packages and signer keys. The
 * command in the hint acts where the failed one did (`--data <dir>` as given, `--registry URL`,
 * or `--db <url>` when `where` is undefined). A remote message may carry the registry URL in
 * front (`http://h/api: namespace acme does not exist`).
 */
export function withAdminHint(err: unknown, where: AdminWhere | undefined): unknown {
  if (!isCtxpkgError(err) || err.hint !== undefined) return err;
  const at = where === undefined ? '--db <url>' : 'registry' in where ? `--registry ${where.registry}` : `--data ${where.shown}`;
  const m = where !== undefined && 'registry' in where && err.message.startsWith(`${where.registry}: `) ? err.message.slice(where.registry.length + 2) : err.message;
  let hint: string | undefined;
  if (err.code === 'E_EXISTS' && /^namespace /.test(m)) {
    hint = `a namespace is created once; see the existing ones with \`ctxpkg registry namespace list ${at}\``;
  } else if (err.code === 'E_RESERVED_NAMESPACE') {
    hint = `reserved names (${RESERVED_NAMESPACES.slice(0, 6).join(', ')}, …) cannot be created, so nobody can pose as the registry; pick another namespace`;
  } else if (err.code === 'E_NOT_FOUND') {
    const ns = /^namespace (\S+) does not exist/.exec(m);
    const key = /^key \S+ is not registered for namespace (\S+)/.exec(m);
    if (ns) hint = `create it first: \`ctxpkg registry namespace create ${ns[1]} ${at}\``;
    else if (key) hint = `see the registered keys with \`ctxpkg registry key list ${key[1]} ${at}\``;
    else if (/^package /.test(m) || /^@/.test(m)) hint = 'nothing of that name was published to this registry; check the @ns/name spelling';
  }
  if (hint === undefined) return err;
  return new CtxpkgError(err.code, err.message, { hint, ...(err.details ? { details: err.details } : {}), cause: err });
}

/**
 * Check a namespace argument before anything is opened, with a hint for the usual slips: a
 * leading `@` (a namespace is written without it) and capitals (namespaces are lower case).
 * Throws `E_INVALID_NAME` (or the format's `validateNamespaceClaim` errors).
 */
export function namespaceArgument(name: string): string {
  const bare = name.startsWith('@') ? name.slice(1) : name;
  const lower = bare.toLowerCase();
  if (bare !== name || lower !== bare) {
    const fixed = lower;
    const why = bare !== name ? 'a namespace is written without the @ (packages are then @' + fixed + '/<name>)' : 'namespaces are lower case';
    throw new CtxpkgError('E_INVALID_NAME', `invalid namespace ${JSON.stringify(name)}: ${why}`, {
      hint: `use \`${fixed}\`, e.g. \`ctxpkg registry namespace create ${fixed}\``,
    });
  }
  try {
    validateNamespaceClaim(name);
  } catch (err) {
    throw withAdminHint(err, undefined);
  }
  return name;
}

/** The `--data`/`--db` flags every `registry` subcommand takes. */
export interface StoreFlags {
  data?: string;
  db?: string;
}

/** Where an admin command works: `{ dataDir }` (SQLite) or `{ db }` (PostgreSQL URL). */
export type AdminLocation = { dataDir: string } | { db: string };

/**
 * The store the flags name: `--db` / `CTXPKG_REGISTRY_DB` (a PostgreSQL URL) or an existing data
 * directory (`--data` / `CTXPKG_REGISTRY_DATA`). Throws `E_USAGE` (both or neither) or `E_NOT_FOUND`.
 */
export function adminLocation(flags: StoreFlags, deps: Pick<CliDeps, 'env' | 'cwd'>): { where: AdminLocation; data?: DataDir } {
  const db = flags.db ?? (flags.data === undefined ? deps.env.CTXPKG_REGISTRY_DB : undefined);
  if (db !== undefined && db !== '') {
    if (flags.data !== undefined) throw new CtxpkgError('E_USAGE', 'give --data <dir> or --db <postgres-url>, not both');
    if (!/^postgres(?:ql)?:\/\//i.test(db)) {
      throw new CtxpkgError('E_USAGE', '--db must be a postgres:// URL', { hint: 'e.g. --db postgres://ctxpkg@db.internal:5432/ctxpkg' });
    }
    return { where: { db } };
  }
  const data = existingDataDir(flags.data, deps);
  return { where: { dataDir: data.path }, data };
}

/** Run an admin action on an existing registry store, adding hints to its errors. */
export async function onRegistry<T>(flags: StoreFlags, deps: Pick<CliDeps, 'env' | 'cwd'>, fn: (where: AdminLocation) => Promise<T>): Promise<T> {
  const { where, data } = adminLocation(flags, deps);
  try {
    return await fn(where);
  } catch (err) {
    throw withAdminHint(err, data);
  }
}

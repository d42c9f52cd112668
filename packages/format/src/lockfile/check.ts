/**
 * Structural and consistency checks of a lockfile value (rules: lockfile.ts `parseLockfile`).
 * Returns every problem found, each with a path such as `packages["@acme/kb"].artifact_sha256`.
 */
import { isLowerHex } from '../hex.js';
import { formatPath } from '../json/parse.js';
import { parsePackageName, validateVersion } from '../names.js';
import { parseRange, satisfies } from '../versions.js';

interface Problem {
  path: string;
  message: string;
}

const TOP_KEYS = ['dependencies', 'lockfileVersion', 'packages'];
const OPTIONAL_TOP_KEYS = ['optionalDependencies'];
const ENTRY_KEYS = ['artifact_sha256', 'dependencies', 'integrity_sha256', 'registry', 'signer_public_key', 'version'];
const OPTIONAL_ENTRY_KEYS = ['log'];
const LOG_KEYS = ['index', 'origin', 'root_hash', 'tree_size'];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

const FILE_PREFIX = 'file:';

/** A `file:<path>` origin: a non-empty path without control characters or backslashes. */
function filePathProblem(path: string): string | undefined {
  if (path === '') return 'needs a path after "file:"';
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return 'must not contain control characters or "\\"';
  return undefined;
}

/**
 * `http(s)://host[:port][/path]` without credentials, query, fragment or trailing `/`, or
 * `file:<path>` (a package installed from a local file).
 */
export function registryUrlProblem(s: unknown): string | undefined {
  if (typeof s !== 'string') return 'must be a string';
  if (s.startsWith(FILE_PREFIX)) return filePathProblem(s.slice(FILE_PREFIX.length));
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return `${JSON.stringify(s)} is not a URL`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (url.username !== '' || url.password !== '') return 'must not contain credentials';
  if (url.search !== '' || url.hash !== '' || s.includes('?') || s.includes('#')) return 'must not have a query or fragment';
  if (s.endsWith('/')) return 'must not end with "/"';
  if (s !== s.trim() || /[\s\u0000-\u001f]/.test(s)) return 'must not contain whitespace';
  return undefined;
}

function checkKeys(obj: Record<string, unknown>, required: string[], path: Array<string | number>, out: Problem[], optional: string[] = []): void {
  for (const k of required) if (!Object.hasOwn(obj, k)) out.push({ path: formatPath([...path, k]), message: 'missing field' });
  for (const k of Object.keys(obj).sort()) {
    if (!required.includes(k) && !optional.includes(k)) out.push({ path: formatPath([...path, k]), message: 'unknown field' });
  }
}

function checkName(name: string, path: Array<string | number>, out: Problem[]): boolean {
  try {
    parsePackageName(name);
    return true;
  } catch (e) {
    out.push({ path: formatPath(path), message: errorText(e) });
    return false;
  }
}

function checkRanges(value: unknown, key: string, out: Problem[]): Record<string, string> {
  const ranges: Record<string, string> = {};
  if (!isPlainObject(value)) {
    out.push({ path: key, message: 'must be an object of name → version range' });
    return ranges;
  }
  for (const name of Object.keys(value).sort()) {
    const range = value[name];
    if (!checkName(name, [key, name], out)) continue;
    if (typeof range !== 'string') {
      out.push({ path: formatPath([key, name]), message: 'the range must be a string' });
      continue;
    }
    if (range.startsWith(FILE_PREFIX)) {
      const problem = key === 'dependencies' ? filePathProblem(range.slice(FILE_PREFIX.length)) : 'an optional dependency cannot be a local file';
      if (problem) out.push({ path: formatPath([key, name]), message: `the local file spec ${problem}` });
      else ranges[name] = range;
      continue;
    }
    try {
      parseRange(range, { mode: 'read' });
      ranges[name] = range;
    } catch (e) {
      out.push({ path: formatPath([key, name]), message: errorText(e) });
    }
  }
  return ranges;
}

function checkEntry(name: string, entry: unknown, out: Problem[]): void {
  const path = ['packages', name];
  if (!checkName(name, path, out)) return;
  if (!isPlainObject(entry)) {
    out.push({ path: formatPath(path), message: 'must be an object' });
    return;
  }
  checkKeys(entry, ENTRY_KEYS, path, out, OPTIONAL_ENTRY_KEYS);
  const at = (k: string) => formatPath([...path, k]);
  if (Object.hasOwn(entry, 'version')) {
    try {
      validateVersion(entry.version as string);
    } catch (e) {
      out.push({ path: at('version'), message: errorText(e) });
    }
  }
  for (const k of ['artifact_sha256', 'integrity_sha256', 'signer_public_key']) {
    if (Object.hasOwn(entry, k) && !isLowerHex(entry[k], 64)) out.push({ path: at(k), message: 'must be 64 lowercase hex characters' });
  }
  if (Object.hasOwn(entry, 'registry')) {
    const problem = registryUrlProblem(entry.registry);
    if (problem) out.push({ path: at('registry'), message: `the registry URL ${problem}` });
  }
  if (Object.hasOwn(entry, 'dependencies') && !isPlainObject(entry.dependencies)) {
    out.push({ path: at('dependencies'), message: 'must be an object of name → version' });
  }
  if (Object.hasOwn(entry, 'log')) checkLogRecord(entry.log, [...path, 'log'], out);
}

/** The `log` record of an entry (spec/transparency.md §5.4): `{ index, origin, root_hash, tree_size }`. */
function checkLogRecord(log: unknown, path: Array<string | number>, out: Problem[]): void {
  if (!isPlainObject(log)) {
    out.push({ path: formatPath(path), message: 'must be an object { index, origin, root_hash, tree_size }' });
    return;
  }
  checkKeys(log, LOG_KEYS, path, out);
  const at = (k: string) => formatPath([...path, k]);
  const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (Object.hasOwn(log, 'index') && !count(log.index)) out.push({ path: at('index'), message: 'must be a non-negative integer' });
  if (Object.hasOwn(log, 'tree_size') && !count(log.tree_size)) out.push({ path: at('tree_size'), message: 'must be a non-negative integer' });
  if (count(log.index) && count(log.tree_size) && (log.index as number) >= (log.tree_size as number)) {
    out.push({ path: at('index'), message: 'must be below tree_size' });
  }
  if (Object.hasOwn(log, 'root_hash') && !isLowerHex(log.root_hash, 64)) out.push({ path: at('root_hash'), message: 'must be 64 lowercase hex characters' });
  if (Object.hasOwn(log, 'origin') && (typeof log.origin !== 'string' || log.origin === '' || /[\s\u0000-\u001f+]/.test(log.origin))) {
    out.push({ path: at('origin'), message: 'must be a non-empty log origin without spaces or "+"' });
  }
}

/** Every problem of a lockfile value (empty when valid). */
export function checkLockfileValue(value: unknown): Problem[] {
  const out: Problem[] = [];
  if (!isPlainObject(value)) return [{ path: '(document)', message: 'the lockfile must be a JSON object' }];
  if (!Object.hasOwn(value, 'lockfileVersion')) return [{ path: 'lockfileVersion', message: 'missing field' }];
  if (value.lockfileVersion !== 1) {
    const v = value.lockfileVersion;
    const newer = typeof v === 'number' && Number.isInteger(v) && v > 1;
    return [{ path: 'lockfileVersion', message: `unsupported lockfile version ${JSON.stringify(v)}; this ctxpkg reads version 1${newer ? ' (upgrade ctxpkg)' : ''}` }];
  }
  checkKeys(value, TOP_KEYS, [], out, OPTIONAL_TOP_KEYS);
  const required = checkRanges(value.dependencies ?? {}, 'dependencies', out);
  const optional = checkRanges(value.optionalDependencies ?? {}, 'optionalDependencies', out);
  for (const name of Object.keys(optional)) {
    if (Object.hasOwn(required, name)) out.push({ path: formatPath(['optionalDependencies', name]), message: 'also declared as a required dependency' });
  }
  const packages = value.packages;
  if (!isPlainObject(packages)) {
    if (Object.hasOwn(value, 'packages')) out.push({ path: 'packages', message: 'must be an object of name → entry' });
    return out;
  }
  const names = Object.keys(packages).sort();
  for (const name of names) checkEntry(name, packages[name], out);
  if (out.length > 0) return out;
  // Consistency: every dependency points at an existing entry holding exactly that version.
  const entries = packages as Record<string, { version: string; registry: string; dependencies: Record<string, unknown> }>;
  for (const name of names) {
    const deps = entries[name]!.dependencies;
    for (const dep of Object.keys(deps).sort()) {
      const path = formatPath(['packages', name, 'dependencies', dep]);
      const v = deps[dep];
      if (!checkName(dep, ['packages', name, 'dependencies', dep], out)) continue;
      if (dep === name) out.push({ path, message: 'a package cannot depend on itself' });
      else if (typeof v !== 'string') out.push({ path, message: 'the version must be a string' });
      else if (!Object.hasOwn(entries, dep)) out.push({ path, message: `points at ${dep}@${v}, which has no entry in the lockfile` });
      else if (entries[dep]!.version !== v) out.push({ path, message: `points at ${dep}@${v}, but the lockfile has ${dep}@${entries[dep]!.version}` });
    }
  }
  for (const [key, ranges] of [['dependencies', required], ['optionalDependencies', optional]] as const) {
    for (const name of Object.keys(ranges)) {
      const entry = entries[name];
      if (entry && ranges[name]!.startsWith(FILE_PREFIX)) {
        if (entry.registry !== ranges[name]) out.push({ path: formatPath([key, name]), message: `declared as ${ranges[name]} but the entry comes from ${entry.registry}` });
      } else if (entry && !satisfies(entry.version, ranges[name]!)) {
        out.push({ path: formatPath([key, name]), message: `the locked ${name}@${entry.version} does not satisfy the declared range ${JSON.stringify(ranges[name])}` });
      }
    }
  }
  return out;
}

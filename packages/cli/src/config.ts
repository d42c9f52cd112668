/**
 * The user config (`<userDir>/config.json`, mode 0600): default registry, registries per scope and
 * saved tokens per registry. Also the one rule that picks a registry for a package and the one
 * rule that decides which token may be sent to it.
 *
 * Precedence for the registry of `@ns/name` (same as npm's scoped registries; ADVERSARIAL HB-28):
 *   1. `registries["@ns"]` in the project's ctxpkg.json, 2. `registries["@ns"]` in the user config,
 *   3. `--registry`, 4. `CTXPKG_REGISTRY`, 5. `registry` in ctxpkg.json, 6. `registry` in the user
 *   config. There is no built-in public default and never a fallback to another registry.
 *
 * Tokens (issue 5 item 2): a saved token belongs to exactly one registry URL; `CTXPKG_TOKEN`
 * belongs to the registry named by `--registry`, else by `CTXPKG_REGISTRY`. A token is attached
 * only to requests whose registry URL equals the one it belongs to.
 *
 * Scoped tokens (new-user trial: a second `login --scope` replaced the first token): registry
 * tokens are namespace-scoped (spec/registry.md §9), so a saved token belongs to a registry URL
 * and, when saved with `ctxpkg login --scope @ns`, to that one scope on it (`scoped_tokens` in
 * config.json, next to the registry-wide `tokens`). A request about a package of `@ns` sends the
 * token of `@ns` on that registry, else the registry-wide one (`savedToken`). A config written
 * before scoped tokens has only `tokens`: each keeps working as its registry's registry-wide token.
 */
import { chmodSync } from 'node:fs';
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from './deps.js';
import { readTextIfExists, writeFileAtomic } from './fsutil.js';
import { formatJson, isPlainObject, parseStrictJsonObject } from './jsonfile.js';
import { userConfigPath } from './paths.js';
import { scopeSuggestion } from './suggest.js';

export interface UserConfig {
  registry?: string;
  /** Scope (`@acme`) → registry URL. */
  registries: Record<string, string>;
  /** Registry URL (normalized) → registry-wide token (`ctxpkg login` without `--scope`, and every token saved before scoped tokens). */
  tokens: Record<string, string>;
  /**
   * Registry URL (normalized) → scope (`@acme`) → the token saved for that scope on that registry
   * (`ctxpkg login --scope @acme`); `scoped_tokens` in config.json. Absent means none.
   */
  scopedTokens?: Record<string, Record<string, string>>;
}

/**
 * Normalize a registry base URL: http(s) only, no credentials, query or fragment, lowercase
 * scheme and host, default port dropped, trailing slashes removed. Throws `E_USAGE`.
 */
export function normalizeRegistryUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new CtxpkgError('E_USAGE', `not a registry URL: ${JSON.stringify(redactUrlText(raw))}`, {
      hint: 'use a URL such as https://registry.example.com/api',
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new CtxpkgError('E_USAGE', `registry URL must use http or https: ${redactUrlText(raw)}`);
  }
  if (u.username || u.password || u.search || u.hash) {
    throw new CtxpkgError('E_USAGE', `registry URL must not carry credentials, a query or a fragment: ${u.origin}`, {
      hint: 'use `ctxpkg login --registry URL` to store a token',
    });
  }
  const path = trimTrailingSlashes(u.pathname);
  return `${u.protocol}//${u.host.toLowerCase()}${path}`;
}

/**
 * `text` without the `/` characters at its end. A loop, not `/\/+$/`: V8 retries that RegExp at
 * every start in a run of slashes, so a long inner run is quadratic. Linear in `text`.
 */
export function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 47) end--;
  return end === text.length ? text : text.slice(0, end);
}

/**
 * A URL-like text safe to print: credentials (`user:pass@`) and everything from `?` or `#` on
 * are replaced by `…`, so a token pasted into a registry URL never reaches a terminal or a CI log.
 */
export function redactUrlText(raw: string): string {
  return raw.replace(/^([^/]*\/\/)[^/?#]*@/, '$1…@').replace(/[?#].*$/s, '?…');
}

/**
 * The comparison key of a registry URL: spellings of one registry compare equal (spec/registry.md
 * §2: a registry answers at its root and under its base path `/api`, so `http://h:80/api/`,
 * `HTTP://H/api` and `http://h` are one registry). The key is the URL with a lowercase scheme and
 * host, no default port, no trailing slashes and no final `/api` segment; the scheme, the host
 * name, the port and every other path segment still count (`https:` ≠ `http:`, `/API` ≠ `/api`).
 * `file:` origins and texts that are no URL are their own key.
 */
export function registryKey(url: string): string {
  if (url.startsWith('file:')) return url;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (u.username || u.password || u.search || u.hash) return url;
  const path = trimTrailingSlashes(u.pathname).replace(/\/api$/, '');
  return `${u.protocol}//${u.host.toLowerCase()}${path}`;
}

/** True when `a` and `b` name the same registry (`registryKey`). */
export function sameRegistry(a: string, b: string): boolean {
  return a === b || registryKey(a) === registryKey(b);
}

/** Validate a scope key (`@acme`). Throws `E_USAGE`. */
export function checkScope(scope: string): string {
  if (!/^@[a-z0-9][a-z0-9-]*$/.test(scope)) {
    throw new CtxpkgError('E_USAGE', `not a scope: ${JSON.stringify(scope)}`, { hint: 'scopes look like @acme' });
  }
  return scope;
}

function stringMap(v: unknown, what: string): Record<string, string> {
  if (v === undefined) return {};
  if (!isPlainObject(v)) throw new CtxpkgError('E_INVALID_JSON', `${what} must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string') throw new CtxpkgError('E_INVALID_JSON', `${what}.${k} must be a string`);
    out[k] = val;
  }
  return out;
}

/**
 * `fn()`, with a `CtxpkgError` it throws re-thrown with `where` (file and key, e.g.
 * `/p/ctxpkg.json: registries["@acme"]`) in front of its message, so a bad value in a settings
 * file names where to fix it. A value read from a settings file or the environment is
 * configuration: its `E_USAGE` becomes `E_CONFIG` (exit 78); pass `{ flag: true }` for a
 * command-line flag, whose bad value stays `E_USAGE` (exit 2). Other codes are kept.
 */
export function inSetting<T>(where: string, fn: () => T, opts: { flag?: boolean } = {}): T {
  try {
    return fn();
  } catch (err) {
    if (!isCtxpkgError(err)) throw err;
    const code = err.code === 'E_USAGE' && !opts.flag ? 'E_CONFIG' : err.code;
    throw new CtxpkgError(code, `${where}: ${err.message}`, { hint: err.hint, details: { ...err.details, setting: where } });
  }
}

/** Parse and validate `registries` (scope → URL); URLs are normalized. Errors name `what` and the key. */
export function parseRegistries(v: unknown, what: string): Record<string, string> {
  const raw = stringMap(v, what);
  const out: Record<string, string> = {};
  for (const k of Object.keys(raw).sort()) {
    const scope = inSetting(`${what} key ${JSON.stringify(k)}`, () => checkScope(k));
    out[scope] = inSetting(`${what}[${JSON.stringify(k)}]`, () => normalizeRegistryUrl(raw[k]));
  }
  return out;
}

/**
 * Load the user config; a missing file is an empty config. `tokens` (URL → token) are the
 * registry-wide tokens, `scoped_tokens` (URL → `@scope` → token) the scoped ones; a file without
 * `scoped_tokens` (written before scoped tokens) loads with none, its tokens registry-wide.
 * Throws `E_INVALID_JSON` (not JSON, a member of the wrong shape) and `E_CONFIG` (a bad registry
 * URL or scope key), naming the file and key.
 */
export function loadUserConfig(deps: Pick<CliDeps, 'env' | 'homeDir'>): UserConfig {
  const path = userConfigPath(deps);
  const text = readTextIfExists(path);
  if (text === undefined) return { registries: {}, tokens: {}, scopedTokens: {} };
  const o = parseStrictJsonObject(text, path);
  const cfg: UserConfig = {
    registries: parseRegistries(o.registries, `${path}: registries`),
    tokens: {},
    scopedTokens: {},
  };
  if (typeof o.registry === 'string') cfg.registry = inSetting(`${path}: registry`, () => normalizeRegistryUrl(o.registry as string));
  const tokens = stringMap(o.tokens, `${path}: tokens`);
  for (const k of Object.keys(tokens)) cfg.tokens[inSetting(`${path}: tokens key`, () => normalizeRegistryUrl(k))] = tokens[k];
  if (o.scoped_tokens !== undefined) {
    if (!isPlainObject(o.scoped_tokens)) throw new CtxpkgError('E_INVALID_JSON', `${path}: scoped_tokens must be an object of registry URL → {"@scope": token}`);
    for (const [k, v] of Object.entries(o.scoped_tokens)) {
      const url = inSetting(`${path}: scoped_tokens key`, () => normalizeRegistryUrl(k));
      const byScope = stringMap(v, `${path}: scoped_tokens[${JSON.stringify(k)}]`);
      const into = (cfg.scopedTokens![url] ??= {});
      for (const scope of Object.keys(byScope)) into[inSetting(`${path}: scoped_tokens[${JSON.stringify(k)}] key ${JSON.stringify(scope)}`, () => checkScope(scope))] = byScope[scope]!;
    }
  }
  return cfg;
}

/**
 * Save the user config atomically (`writeFileAtomic`: a temporary file renamed over the old one)
 * with mode 0600 (it holds tokens). Keys are sorted; `scoped_tokens` is written only when it holds
 * a token (registries without one are dropped), so a config without scoped tokens keeps the
 * layout older versions read. Returns the path.
 */
export function saveUserConfig(deps: Pick<CliDeps, 'env' | 'homeDir'>, cfg: UserConfig): string {
  const path = userConfigPath(deps);
  const out: Record<string, unknown> = {};
  if (cfg.registry) out.registry = cfg.registry;
  out.registries = Object.fromEntries(Object.keys(cfg.registries).sort().map((k) => [k, cfg.registries[k]]));
  out.tokens = Object.fromEntries(Object.keys(cfg.tokens).sort().map((k) => [k, cfg.tokens[k]]));
  const scoped = cfg.scopedTokens ?? {};
  const urls = Object.keys(scoped).filter((u) => Object.keys(scoped[u] ?? {}).length > 0).sort();
  if (urls.length > 0) {
    out.scoped_tokens = Object.fromEntries(urls.map((u) => [u, Object.fromEntries(Object.keys(scoped[u]!).sort().map((sc) => [sc, scoped[u]![sc]]))]));
  }
  writeFileAtomic(path, formatJson(out), { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** Everything that decides registries and tokens for one command run. */
export interface RegistrySettings {
  /** `--registry`, normalized. */
  flag?: string;
  /** Project ctxpkg.json `registry` and `registries`. */
  project: { registry?: string; registries: Record<string, string> };
  user: UserConfig;
  env: Record<string, string | undefined>;
}

/** Build settings from the environment, the user config and the project's registry members. */
export function registrySettings(
  deps: Pick<CliDeps, 'env' | 'homeDir'>,
  flag: string | undefined,
  project: RegistrySettings['project'] = { registries: {} },
): RegistrySettings {
  return {
    flag: flag ? inSetting('--registry', () => normalizeRegistryUrl(flag), { flag: true }) : undefined,
    project,
    user: loadUserConfig(deps),
    env: deps.env,
  };
}

function envRegistry(env: RegistrySettings['env']): string | undefined {
  const v = env.CTXPKG_REGISTRY;
  return v && v.trim() !== '' ? inSetting('CTXPKG_REGISTRY', () => normalizeRegistryUrl(v)) : undefined;
}

/**
 * The registry for package `name` (`@ns/name`) by the precedence in the file header.
 * Throws `E_CONFIG` (exit 78) when nothing is configured: the message names the closest bound
 * scope ("did you mean @acme/agents?", `suggest.ts`) and the hint the command that binds the
 * scope, with the registry URL filled in when every bound scope names the same registry.
 */
export function registryFor(name: string, s: RegistrySettings): string {
  const scope = name.startsWith('@') && name.includes('/') ? name.slice(0, name.indexOf('/')) : undefined;
  const url =
    (scope && s.project.registries[scope]) ||
    (scope && s.user.registries[scope]) ||
    s.flag ||
    envRegistry(s.env) ||
    s.project.registry ||
    s.user.registry;
  if (!url) {
    const bound = boundScopes(s);
    const near = scopeSuggestion(name, bound);
    const known = [...new Set(Object.values(bound))];
    const reg = known.length === 1 ? (known[0] as string) : 'URL';
    const bind = `\`ctxpkg login --registry ${reg} --scope ${scope ?? '@ns'}\` (your user) or \`ctxpkg init --registry ${reg}\` (this project), or pass --registry ${reg} / set CTXPKG_REGISTRY`;
    throw new CtxpkgError('E_CONFIG', `no registry configured for ${name}${near ? `; ${near}` : ''}`, {
      hint: near ? `if the scope is mistyped, use the name suggested; if ${scope} is right, bind it to its registry: ${bind}` : `bind ${scope ?? 'the scope'} to its registry: ${bind}`,
      details: { package: name, bound_scopes: Object.keys(bound).sort() },
    });
  }
  return url;
}

/** Every bound scope → registry URL (ctxpkg.json wins over the user config, as in `registryFor`). */
export function boundScopes(s: RegistrySettings): Record<string, string> {
  return { ...s.user.registries, ...s.project.registries };
}

/**
 * The default registry for commands that are not about one package (search): `--registry`,
 * `CTXPKG_REGISTRY`, `registry` in ctxpkg.json, `registry` in the user config; failing those, the
 * one registry that scopes are bound to when every bound scope (project and user) names the same
 * one — what a user who ran `ctxpkg login --registry URL --scope @ns` expects. `E_CONFIG` (exit
 * 78) if none.
 */
export function defaultRegistry(s: RegistrySettings): string {
  const url = s.flag || envRegistry(s.env) || s.project.registry || s.user.registry;
  if (url) return url;
  const bound = [...new Set([...Object.values(s.project.registries), ...Object.values(s.user.registries)])].sort();
  if (bound.length === 1) return bound[0] as string;
  throw new CtxpkgError('E_CONFIG', bound.length === 0 ? 'no registry configured' : `no default registry, and scopes are bound to ${bound.length} registries (${bound.join(', ')})`, {
    hint: 'run `ctxpkg login --registry URL` (sets your default registry when none is set) or `ctxpkg init --registry URL` (this project), or pass --registry URL / set CTXPKG_REGISTRY',
  });
}

/**
 * The shape of a token our registry issues (spec/registry.md §9): `ctxr_` (read), `ctxp_`
 * (publish), `ctxo_` (owner) or `ctxa_` (admin) + 43 base64url characters.
 */
export const TOKEN_SHAPE = /^ctx[proa]_[A-Za-z0-9_-]{43}$/;

/**
 * The token that may be sent to `registryUrl` for a request about a package of `scope` (`@acme`;
 * undefined for requests not about one package: search, whoami, the log), or undefined.
 * `CTXPKG_TOKEN` is bound to the registry named by `--registry`, else `CTXPKG_REGISTRY`, and wins
 * there for every scope (it is this run's explicit choice); otherwise the saved token
 * `savedToken` picks (the scope's own, else the registry-wide one). Throws `E_AUTH` (never showing
 * the token) when the token found is not printable ASCII without spaces, and `E_CONFIG` for a bad
 * `CTXPKG_REGISTRY`.
 */
export function tokenFor(registryUrl: string, s: RegistrySettings, scope?: string): string | undefined {
  const url = normalizeRegistryUrl(registryUrl);
  const envTok = s.env.CTXPKG_TOKEN;
  if (envTok && envTok.trim() !== '') {
    const bound = s.flag ?? envRegistry(s.env);
    if (bound !== undefined && sameRegistry(bound, url)) return checkedToken(envTok.trim(), 'the token in CTXPKG_TOKEN', 'set CTXPKG_TOKEN to exactly the token text (one line, no spaces)');
  }
  const saved = savedTokenEntry(s.user, url, scope);
  if (saved === undefined) return undefined;
  const which = saved.scope === undefined ? `the token saved for ${url}` : `the token saved for ${saved.scope} on ${url}`;
  return checkedToken(saved.token, `${which} in config.json (your ctxpkg user directory)`, `run \`ctxpkg login --registry ${url}${saved.scope ? ` --scope ${saved.scope}` : ''}\` again`);
}

/** The scope (`@acme`) of a package name `@acme/x`, or undefined for a name without one. */
export function scopeOfName(name: string): string | undefined {
  const m = /^(@[^/]+)\//.exec(name);
  return m ? m[1] : undefined;
}

/**
 * Why `CTXPKG_TOKEN` was not sent to `registryUrl`, for the hint of a 401 or 404 (a CI job that
 * sets only CTXPKG_TOKEN gets "not found" for a private package, and nothing said why); undefined
 * when it is unset or was sent. The reason names the setting to add or fix.
 */
export function unsentEnvToken(registryUrl: string, s: RegistrySettings): string | undefined {
  const envTok = s.env.CTXPKG_TOKEN;
  if (!envTok || envTok.trim() === '') return undefined;
  const url = normalizeRegistryUrl(registryUrl);
  let bound: string | undefined;
  try {
    bound = s.flag ?? envRegistry(s.env);
  } catch {
    bound = undefined;
  }
  if (bound !== undefined && sameRegistry(bound, url)) return undefined;
  return bound === undefined
    ? `CTXPKG_TOKEN is set but was not sent: it belongs only to the registry named by --registry or CTXPKG_REGISTRY, and neither is set (add CTXPKG_REGISTRY=${url})`
    : `CTXPKG_TOKEN was not sent: it belongs to ${bound} (${s.flag !== undefined ? '--registry' : 'CTXPKG_REGISTRY'}), not to ${url}`;
}

/**
 * The token saved for `url` in the user config for a request about a package of `scope`, or
 * undefined. See `savedTokenEntry` for the rule.
 */
export function savedToken(user: UserConfig, url: string, scope?: string): string | undefined {
  return savedTokenEntry(user, url, scope)?.token;
}

/**
 * The saved token for `url` and `scope` with the scope it was saved for (undefined: the
 * registry-wide token). Every lookup accepts the token saved under exactly `url` first, then
 * under another spelling of the same registry (`sameRegistry`: with or without `/api`).
 *   1. With `scope` (a request about one package of it): the token saved for `scope` on the
 *      registry, else the registry-wide token, else none — a token of another namespace is never
 *      sent for it (it could not read the scope's private packages anyway).
 *   2. Without `scope` (search, whoami, the log, the catalog): the registry-wide token; when the
 *      registry has none, its one scoped token if exactly one scope has one (the single-namespace
 *      user's `login --scope`), else none (the request goes anonymous: no token of one namespace
 *      is preferred over another's).
 */
export function savedTokenEntry(user: UserConfig, url: string, scope?: string): { token: string; scope?: string } | undefined {
  const key = registryKey(url);
  const spellings = (m: Record<string, unknown>): string[] => [
    ...(Object.prototype.hasOwnProperty.call(m, url) ? [url] : []),
    ...Object.keys(m).sort().filter((k) => k !== url && registryKey(k) === key),
  ];
  const scoped = user.scopedTokens ?? {};
  if (scope !== undefined) {
    for (const u of spellings(scoped)) {
      const t = scoped[u]?.[scope];
      if (t !== undefined) return { token: t, scope };
    }
  }
  const wide = spellings(user.tokens)[0];
  if (wide !== undefined) return { token: user.tokens[wide]!, scope: undefined };
  if (scope !== undefined) return undefined;
  const all = new Map<string, string>();
  for (const u of spellings(scoped)) for (const [sc, t] of Object.entries(scoped[u] ?? {})) if (!all.has(sc)) all.set(sc, t);
  if (all.size !== 1) return undefined;
  const [only, t] = [...all][0]!;
  return { token: t, scope: only };
}

/**
 * Every token the user config saves for the registry `url` (any spelling, `sameRegistry`), as
 * `{ scope, url, token }` rows (scope undefined: registry-wide), registry-wide first, then by
 * scope and URL. For login's and logout's report and the admin hints; never print `token`.
 */
export function savedTokensOf(user: UserConfig, url: string): Array<{ url: string; scope?: string; token: string }> {
  const key = registryKey(url);
  const out: Array<{ url: string; scope?: string; token: string }> = [];
  for (const u of Object.keys(user.tokens).sort()) if (registryKey(u) === key) out.push({ url: u, token: user.tokens[u]! });
  const scoped = user.scopedTokens ?? {};
  const rows: Array<{ url: string; scope: string; token: string }> = [];
  for (const u of Object.keys(scoped)) if (registryKey(u) === key) for (const sc of Object.keys(scoped[u] ?? {})) rows.push({ url: u, scope: sc, token: scoped[u]![sc]! });
  rows.sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  return [...out, ...rows];
}

/** A token as it may travel in an `Authorization` header: printable ASCII, no spaces. */
const TOKEN_TEXT = /^[\x21-\x7e]+$/;

/**
 * `token` when it is printable ASCII without spaces (issue 11 item 8: a CR/LF would inject a
 * header, and the runtime's error about it printed the value); else `E_AUTH` naming `source` but
 * never showing the token, before any request.
 */
function checkedToken(token: string, source: string, fix: string): string {
  if (TOKEN_TEXT.test(token)) return token;
  throw new CtxpkgError('E_AUTH', `${source} is not a valid token: it has a line break, control character, space or non-ASCII character; it was not sent`, { hint: fix });
}

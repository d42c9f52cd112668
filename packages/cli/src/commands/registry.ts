/**
 * `ctxpkg registry …` — run and administer a registry (spec/registry.md "Running a registry",
 * "Bootstrap and administration"):
 *
 *   registry serve --data <dir> [--host 127.0.0.1] [--port 4873] [--public-url URL]
 *                  [--max-package-bytes N] [--base-path /api] [--cors-origin URL…]
 *   registry namespace create <ns> [--owner <label>] | namespace list
 *   registry token create [--namespace <ns>] --scope read|publish|owner|admin [--expires 30d] [--label <text>]
 *   registry token revoke <id-or-token> | token list [--namespace <ns>]
 *   registry key add|revoke <ns> <public-key> | key list <ns>
 *   registry visibility <@ns/name> public|private
 *   registry events [--namespace <ns>] [--limit 50]
 *   registry gc [--grace 1h]
 *   registry log verify | log key            (registry-log.ts; spec/transparency.md)
 *
 * Every subcommand takes `--data <dir>` (or `CTXPKG_REGISTRY_DATA`) or `--db <url>`; all but
 * `serve` refuse a directory that is not an existing registry (`E_NOT_FOUND`, registry-admin.ts)
 * and add hints to the registry's errors. The admin subcommands (namespace, token, key,
 * visibility, events, gc) also work remotely with `--registry URL` and an admin or owner token
 * (registry-remote.ts, the server's admin routes). `@ctxpkg/registry` is imported only inside
 * these actions, so no other command loads the server.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';
import { alignColumns } from './outdated.js';
import { tableCell } from '../output.js';
import { trimTrailingSlashes } from '../config.js';
import { adminLocation, dataDirOf, namespaceArgument, onRegistry, type AdminLocation } from './registry-admin.js';
import type { AdminOps } from './registry-remote.js';
import { registerRegistryLog, witnessFlags } from './registry-log.js';

export { dataDirOf } from './registry-admin.js';

type Registry = typeof import('@ctxpkg/registry');
type TokenScope = import('@ctxpkg/registry').TokenScope;
const load = (): Promise<Registry> => import('@ctxpkg/registry');

function intOption(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new CtxpkgError('E_USAGE', `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

function publicUrlOption(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let u: URL | undefined;
  try {
    u = new URL(raw);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.search || u.hash) {
    throw new CtxpkgError('E_USAGE', `--public-url must be an http(s) base URL without query, got ${JSON.stringify(raw)}`);
  }
  return trimTrailingSlashes(raw);
}

export interface ServeOptions {
  config?: string;
  data?: string;
  db?: string;
  host?: string;
  port?: string;
  publicUrl?: string;
  maxPackageBytes?: string;
  basePath?: string;
  corsOrigin?: string[];
  tlsCert?: string;
  tlsKey?: string;
  requestTimeout?: string;
  headersTimeout?: string;
  idleTimeout?: string;
  witness?: string[];
}

/** Keys of a `--config` file: every `serve` flag, spelled as the flag without its dashes. */
const CONFIG_KEYS: Record<string, keyof ServeOptions> = {
  data: 'data', db: 'db', host: 'host', port: 'port', 'public-url': 'publicUrl', 'max-package-bytes': 'maxPackageBytes',
  'base-path': 'basePath', 'cors-origin': 'corsOrigin', 'tls-cert': 'tlsCert', 'tls-key': 'tlsKey',
  'request-timeout': 'requestTimeout', 'headers-timeout': 'headersTimeout', 'idle-timeout': 'idleTimeout', witness: 'witness',
};
/** Keys whose value is a path, resolved against the config file's directory. */
const PATH_KEYS = new Set<keyof ServeOptions>(['data', 'tlsCert', 'tlsKey']);

/**
 * Read a `serve` config file: a JSON object whose keys are serve flags (`"port": 4873`,
 * `"public-url": "https://…"`, `"cors-origin": ["https://…"]`, …). Relative paths are relative
 * to the file. Throws `E_USAGE` (unknown key, wrong type), `E_NOT_FOUND`, `E_INVALID_JSON`.
 */
export function readServeConfigFile(path: string): ServeOptions {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CtxpkgError('E_NOT_FOUND', `cannot read the config file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new CtxpkgError('E_INVALID_JSON', `${path} is not JSON: ${(err as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new CtxpkgError('E_USAGE', `${path} must hold a JSON object of serve options`);
  const out: ServeOptions = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const key = CONFIG_KEYS[k];
    if (!key) throw new CtxpkgError('E_USAGE', `${path}: unknown option ${JSON.stringify(k)}`, { hint: `known options: ${Object.keys(CONFIG_KEYS).join(', ')}` });
    if (key === 'corsOrigin' || key === 'witness') {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new CtxpkgError('E_USAGE', `${path}: ${JSON.stringify(k)} must be an array of strings`);
      out[key] = v as string[];
    } else if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) {
      const text2 = String(v);
      (out as Record<string, string>)[key] = PATH_KEYS.has(key) ? resolve(dirname(resolve(path)), text2) : text2;
    } else {
      throw new CtxpkgError('E_USAGE', `${path}: ${JSON.stringify(k)} must be a string or a number`);
    }
  }
  return out;
}

function secondsOption(name: string, raw: string | undefined): number | undefined {
  const n = intOption(name, raw, 1, 86_400);
  return n === undefined ? undefined : n * 1000;
}

/**
 * Resolve serve options: flags, then `CTXPKG_REGISTRY_*` environment variables, then the
 * `--config` file (or `CTXPKG_REGISTRY_CONFIG`), then defaults. Throws `E_USAGE`.
 */
export function serveConfig(flags: ServeOptions, deps: Pick<CliDeps, 'env' | 'cwd'>) {
  const env = deps.env;
  const configPath = flags.config ?? env.CTXPKG_REGISTRY_CONFIG;
  const file = configPath ? readServeConfigFile(resolve(deps.cwd, configPath)) : {};
  const pick = <K extends keyof ServeOptions>(key: K, envName: string): ServeOptions[K] | undefined =>
    flags[key] ?? ((env[envName] as ServeOptions[K] | undefined) || undefined) ?? file[key];
  const corsEnv = env.CTXPKG_REGISTRY_CORS_ORIGINS ? env.CTXPKG_REGISTRY_CORS_ORIGINS.split(',').map((x) => x.trim()).filter(Boolean) : undefined;
  const cors = flags.corsOrigin ?? corsEnv ?? file.corsOrigin ?? [];
  const maxBytes = intOption('--max-package-bytes', pick('maxPackageBytes', 'CTXPKG_REGISTRY_MAX_PACKAGE_BYTES'), 1, 1024 * 1024 * 1024);
  const data = flags.data ?? (flags.db === undefined ? env.CTXPKG_REGISTRY_DATA : undefined);
  const db = flags.db ?? (data === undefined ? env.CTXPKG_REGISTRY_DB : undefined);
  const where =
    db !== undefined && db !== ''
      ? adminLocation({ db, data: flags.data }, deps).where
      : data !== undefined || file.db === undefined
        ? { dataDir: dataDirOf(data ?? file.data, deps) }
        : adminLocation({ db: file.db }, deps).where;
  const tlsCert = pick('tlsCert', 'CTXPKG_REGISTRY_TLS_CERT');
  const tlsKey = pick('tlsKey', 'CTXPKG_REGISTRY_TLS_KEY');
  if ((tlsCert === undefined) !== (tlsKey === undefined)) throw new CtxpkgError('E_USAGE', 'HTTPS needs both --tls-cert and --tls-key');
  const timeouts = {
    requestMs: secondsOption('--request-timeout', pick('requestTimeout', 'CTXPKG_REGISTRY_REQUEST_TIMEOUT')),
    headersMs: secondsOption('--headers-timeout', pick('headersTimeout', 'CTXPKG_REGISTRY_HEADERS_TIMEOUT')),
    idleMs: secondsOption('--idle-timeout', pick('idleTimeout', 'CTXPKG_REGISTRY_IDLE_TIMEOUT')),
  };
  return {
    ...where,
    host: pick('host', 'CTXPKG_REGISTRY_HOST') ?? '127.0.0.1',
    port: intOption('--port', pick('port', 'CTXPKG_REGISTRY_PORT'), 0, 65535) ?? 4873,
    publicUrl: publicUrlOption(pick('publicUrl', 'CTXPKG_REGISTRY_PUBLIC_URL')),
    basePath: pick('basePath', 'CTXPKG_REGISTRY_BASE_PATH'),
    corsOrigins: cors,
    limits: maxBytes === undefined ? undefined : { maxPackageBytes: maxBytes },
    tlsFiles: tlsCert !== undefined && tlsKey !== undefined ? { cert: resolve(deps.cwd, tlsCert), key: resolve(deps.cwd, tlsKey) } : undefined,
    timeouts: Object.fromEntries(Object.entries(timeouts).filter(([, v]) => v !== undefined)) as { requestMs?: number; headersMs?: number; idleMs?: number },
    witnesses: witnessFlags(flags.witness ?? (env.CTXPKG_REGISTRY_WITNESSES ? env.CTXPKG_REGISTRY_WITNESSES.split(',').map((x) => x.trim()).filter(Boolean) : undefined) ?? file.witness ?? []),
  };
}

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new CtxpkgError('E_ENVIRONMENT', `cannot read the TLS ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      hint: `check --tls-${what === 'certificate' ? 'cert' : 'key'} and that this user may read the file`,
    });
  }
}

async function runServe(opts: ServeOptions, deps: CliDeps): Promise<CommandResult> {
  const { tlsFiles, ...cfg } = serveConfig(opts, deps);
  const tls = tlsFiles ? { cert: readPem(tlsFiles.cert, 'certificate'), key: readPem(tlsFiles.key, 'key') } : undefined;
  // Checked here (the registry package is loaded lazily), so a bad --witness fails before binding.
  const { parseWitnessFlag } = await load();
  cfg.witnesses = cfg.witnesses.map((w) => parseWitnessFlag(`${w.vkey}=${w.url}`));
  const { serveRegistry } = await load();
  const { url } = await serveRegistry({ ...cfg, tls }, { stdout: deps.stdout });
  return { text: [`registry on ${url} stopped`], json: { stopped: true, url } };
}

const dataOpt = (c: Command): Command =>
  c
    .option('--data <dir>', 'registry data directory, embedded SQLite store (or CTXPKG_REGISTRY_DATA)')
    .option('--db <url>', 'PostgreSQL store: postgres://user@host:5432/database (or CTXPKG_REGISTRY_DB)');

function registerServe(reg: Command, ctx: CommandContext): void {
  dataOpt(ctx.command(reg, 'serve', 'run a registry server in the foreground (SIGTERM drains and stops it)'))
    .option('--config <file>', 'JSON file with any of these options, keys spelled like the flags ("port", "public-url", …) (CTXPKG_REGISTRY_CONFIG)')
    .option('--host <host>', 'interface to bind (CTXPKG_REGISTRY_HOST; default 127.0.0.1, this machine only — 0.0.0.0 for every interface)', undefined)
    .option('--port <port>', 'port, 0 picks a free one (CTXPKG_REGISTRY_PORT; default 4873)')
    .option('--public-url <url>', 'externally visible base URL (CTXPKG_REGISTRY_PUBLIC_URL)')
    .option('--max-package-bytes <n>', 'largest accepted package in bytes (CTXPKG_REGISTRY_MAX_PACKAGE_BYTES; default 10485760, the 10 MiB file limit of the format)')
    .option('--base-path <path>', 'extra API mount point besides the root (CTXPKG_REGISTRY_BASE_PATH; default /api — clients log in to <url>/api)')
    .option('--cors-origin <origin...>', 'origins allowed to send authorized cross-origin writes (CTXPKG_REGISTRY_CORS_ORIGINS)')
    .option('--witness <vkey=url...>', 'a witness that cosigns the log (c2sp.org/tlog-witness): its cosigner vkey and URL (CTXPKG_REGISTRY_WITNESSES, comma-separated)')
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate chain (CTXPKG_REGISTRY_TLS_CERT; needs --tls-key)')
    .option('--tls-key <file>', 'the PEM private key of --tls-cert (CTXPKG_REGISTRY_TLS_KEY)')
    .option('--request-timeout <s>', 'seconds a whole request may take, body included (CTXPKG_REGISTRY_REQUEST_TIMEOUT; default 60)')
    .option('--headers-timeout <s>', 'seconds for the request headers (CTXPKG_REGISTRY_HEADERS_TIMEOUT; default 10)')
    .option('--idle-timeout <s>', 'seconds a connection may stay silent (CTXPKG_REGISTRY_IDLE_TIMEOUT; default 30)')
    .addHelpText(
      'after',
      examples([
        'ctxpkg registry serve --data ./registry-data --port 4873',
        'ctxpkg registry serve --db postgres://ctxpkg@db.internal:5432/ctxpkg --host 0.0.0.0 --public-url https://ctx.example.com',
        'ctxpkg registry serve --config /etc/ctxpkg/registry.json',
      ]) +
        '\nBy default the server listens on 127.0.0.1:4873 (this machine only). Clients use the base URL\n' +
        'with the /api suffix: `ctxpkg login --registry http://127.0.0.1:4873/api --scope @acme`.\n' +
        'Health: GET /-/ping (alive), /-/ready (database reachable, not draining), /healthz (can write).\n',
    )
    .action(ctx.action(async (opts: ServeOptions) => runServe(opts, ctx.deps)));
}

/** The flags of an admin subcommand: where it acts. */
interface AdminFlags {
  data?: string;
  db?: string;
  registry?: string;
}

/**
 * The admin operations the flags name: remote with `--registry URL` (remote admin routes, the
 * token configured for that registry), else local on `--data`/`--db` (or their environment
 * variables). Throws `E_USAGE` for both or neither; for neither, the hint names the registries the
 * user config holds an admin or owner token for (the namespace's own first), ready to paste.
 */
async function adminOps(flags: AdminFlags, deps: CliDeps, namespace?: string): Promise<AdminOps> {
  if (flags.registry !== undefined) {
    if (flags.data !== undefined || flags.db !== undefined) {
      throw new CtxpkgError('E_USAGE', 'give --registry URL (administer remotely) or --data/--db (on the server), not both');
    }
    const { remoteAdmin } = await import('./registry-remote.js');
    return remoteAdmin(flags.registry, deps, namespace);
  }
  const env = deps.env;
  if (flags.data === undefined && flags.db === undefined && !env.CTXPKG_REGISTRY_DATA && !env.CTXPKG_REGISTRY_DB) {
    const saved = await adminRegistriesSaved(deps, namespace);
    throw new CtxpkgError('E_USAGE', 'no registry to administer: pass --registry URL (remotely) or --data <dir> / --db <url> (on the server)', {
      hint:
        saved.length > 0
          ? `your config holds ${saved.map((s) => `${s.what} for ${s.url}`).join(', ')}: add \`--registry ${saved[0]!.url}\``
          : 'remotely you need an admin (ctxa_) or namespace-owner (ctxo_) token saved with `ctxpkg login --registry URL` or in CTXPKG_TOKEN; on the server, CTXPKG_REGISTRY_DATA or CTXPKG_REGISTRY_DB also work',
    });
  }
  const local = <T>(fn: (reg: Registry, where: AdminLocation) => Promise<T>): Promise<T> => onRegistry(flags, deps, async (where) => fn(await load(), where));
  const { where } = adminLocation(flags, deps);
  return {
    where: 'dataDir' in where ? where.dataDir : 'the database',
    remote: false,
    createNamespace: (name, owner) => local((r, w) => r.createNamespace(w, name, owner)),
    listNamespaces: () => local((r, w) => r.listNamespaces(w)),
    createToken: (o) => local((r, w) => r.createToken(w, { namespace: o.namespace, scope: o.scope as TokenScope, expires: o.expires, label: o.label })),
    revokeToken: (id) => local(async (r, w) => withoutHash(await r.revokeToken(w, id))),
    listTokens: (ns) => local(async (r, w) => (await r.listTokens(w, ns)).map(withoutHash)),
    addKey: (ns, key) => local((r, w) => r.addSignerKey(w, ns, key)),
    revokeKey: (ns, key) => local((r, w) => r.revokeSignerKey(w, ns, key)),
    listKeys: (ns) => local((r, w) => r.listSignerKeys(w, ns)),
    setVisibility: (full, v) => local((r, w) => r.setPackageVisibility(w, full, v)),
    events: (o) => local((r, w) => r.listEvents(w, o)),
    gc: (ms) => local((r, w) => r.collectGarbage(w, ms)),
  };
}

/**
 * The registries the user config saves an admin (`ctxa_`) or owner (`ctxo_`) token for — the ones
 * `--registry` would work with — the one `@namespace` is bound to first, then by URL. Tokens are
 * read only for their prefix and never shown. A config that cannot be read gives none.
 */
async function adminRegistriesSaved(deps: CliDeps, namespace?: string): Promise<Array<{ url: string; what: string }>> {
  const { loadUserConfig } = await import('../config.js');
  let cfg;
  try {
    cfg = loadUserConfig(deps);
  } catch {
    return [];
  }
  const bound = namespace === undefined ? undefined : cfg.registries[`@${namespace}`];
  const out: Array<{ url: string; what: string }> = [];
  for (const url of Object.keys(cfg.tokens).sort()) {
    const prefix = (cfg.tokens[url] ?? '').slice(0, 5);
    if (prefix !== 'ctxa_' && prefix !== 'ctxo_') continue;
    const scopes = Object.keys(cfg.registries).filter((s) => cfg.registries[s] === url).sort();
    const what = prefix === 'ctxa_' ? 'an admin token' : `an owner token${scopes.length ? ` (${scopes.join(', ')})` : ''}`;
    out.push({ url, what });
  }
  // Tokens saved with `login --scope`: an owner token names its own scope.
  const scoped = cfg.scopedTokens ?? {};
  for (const url of Object.keys(scoped).sort()) {
    const own = Object.keys(scoped[url] ?? {}).filter((s) => /^ctx[ao]_/.test(scoped[url]![s] ?? '')).sort();
    if (own.length === 0 || out.some((o) => o.url === url)) continue;
    const admin = own.some((s) => scoped[url]![s]!.startsWith('ctxa_'));
    out.push({ url, what: admin ? 'an admin token' : `an owner token (${own.join(', ')})` });
  }
  return out.sort((a, b) => Number(b.url === bound) - Number(a.url === bound));
}

/** A token record without its hash (never printed). */
function withoutHash<T extends { token_sha256?: string }>(t: T): Omit<T, 'token_sha256'> {
  const { token_sha256: _h, ...rest } = t;
  return rest;
}

/** `--data`, `--db` and `--registry`: every admin subcommand works locally or remotely. */
const adminOpt = (c: Command): Command =>
  dataOpt(c).option('--registry <url>', 'administer a running registry remotely, with the admin (ctxa_) or owner (ctxo_) token saved by `ctxpkg login` or in CTXPKG_TOKEN');

const TOKEN_SCOPES = ['read', 'publish', 'owner', 'admin'];

function registerNamespace(reg: Command, ctx: CommandContext): void {
  const ns = reg.command('namespace').description('create and list namespaces');
  adminOpt(ctx.command(ns, 'create <namespace>', 'create a namespace: lower case a-z, 0-9, inner dashes, 2–32 characters, written without @'))
    .option('--owner <label>', 'who owns it (a person, team or e-mail)', 'admin')
    .addHelpText('after', examples(['ctxpkg registry namespace create acme --owner platform-team --data ./registry-data', 'ctxpkg registry namespace create acme --owner platform-team --registry https://ctx.example.com/api']))
    .action(
      ctx.action(async (name: string, opts: AdminFlags & { owner: string }) => {
        namespaceArgument(name);
        const rec = await (await adminOps(opts, ctx.deps)).createNamespace(name, opts.owner);
        return { text: [`created namespace ${rec.name} (owner ${rec.owner})`], json: rec };
      }),
    );
  adminOpt(ctx.command(ns, 'list', 'list namespaces (with an owner token: its own)'))
    .addHelpText('after', examples(['ctxpkg registry namespace list --data ./registry-data', 'CTXPKG_REGISTRY_DATA=./registry-data ctxpkg registry namespace list --json', 'ctxpkg registry namespace list --registry https://ctx.example.com/api']))
    .action(
    ctx.action(async (opts: AdminFlags) => {
      const list = await (await adminOps(opts, ctx.deps)).listNamespaces();
      return { text: list.length ? list.map((n) => `${tableCell(n.name)}\towner ${tableCell(n.owner)}\tcreated ${tableCell(n.created_at)}`) : ['no namespaces'], json: list };
    }),
  );
}

function registerToken(reg: Command, ctx: CommandContext): void {
  const tok = reg.command('token').description('create, revoke and list access tokens');
  adminOpt(ctx.command(tok, 'create', 'create a token; prints it once on stdout'))
    .option('--namespace <ns>', 'the namespace the token belongs to (every scope but admin)')
    .requiredOption('--scope <scope>', 'read (ctxr_: install, incl. private), publish (ctxp_: also publish, yank), owner (ctxo_: also administer the namespace) or admin (ctxa_: the whole registry, no namespace)')
    .option('--expires <when>', 'never, 90m, 12h, 30d, 8w or an RFC 3339 time', 'never')
    .option('--label <text>', 'a note to recognise the token by')
    .addHelpText('after', examples([
      'TOKEN=$(ctxpkg registry token create --namespace acme --scope publish --expires 30d --data ./registry-data)',
      'ctxpkg registry token create --scope admin --label laptop --data ./registry-data   # on the server, once',
      'ctxpkg registry token create --namespace acme --scope owner --registry https://ctx.example.com/api',
    ]))
    .action(
      ctx.action(async (opts: AdminFlags & { namespace?: string; scope: string; expires: string; label?: string }) => {
        if (!TOKEN_SCOPES.includes(opts.scope)) throw new CtxpkgError('E_USAGE', `--scope must be one of ${TOKEN_SCOPES.join(', ')}`);
        if (opts.scope === 'admin' && opts.namespace !== undefined) throw new CtxpkgError('E_USAGE', 'an admin token belongs to no namespace; leave out --namespace');
        if (opts.scope !== 'admin' && opts.namespace === undefined) throw new CtxpkgError('E_USAGE', `a ${opts.scope} token belongs to a namespace: give --namespace <ns>`);
        if (opts.namespace !== undefined) namespaceArgument(opts.namespace);
        const t = await (await adminOps(opts, ctx.deps, opts.namespace)).createToken({ namespace: opts.namespace ?? null, scope: opts.scope, expires: opts.expires, label: opts.label });
        return {
          text: [t.token],
          json: t,
          warnings: [`token ${t.id} (${t.scope}${t.namespace ? `, namespace ${t.namespace}` : ', whole registry'}, expires ${t.expires_at ?? 'never'}) is shown only this once; store it now`],
        };
      }),
    );
  adminOpt(ctx.command(tok, 'revoke <id-or-token>', 'revoke a token by its id (tok_…) or its text'))
    .addHelpText('after', examples(['ctxpkg registry token list --namespace acme --data ./registry-data   # find the id', 'ctxpkg registry token revoke tok_3f2a9c1d --data ./registry-data', 'ctxpkg registry token revoke tok_3f2a9c1d --registry https://ctx.example.com/api']))
    .action(
    ctx.action(async (idOrToken: string, opts: AdminFlags) => {
      const t = await (await adminOps(opts, ctx.deps)).revokeToken(idOrToken);
      return { text: [`revoked ${t.id} (${t.scope}, ${t.namespace ? `namespace ${t.namespace}` : 'whole registry'}) at ${t.revoked_at}`], json: t };
    }),
  );
  adminOpt(ctx.command(tok, 'list', 'list tokens (ids and state, never the secrets)'))
    .option('--namespace <ns>', 'only this namespace')
    .addHelpText('after', examples(['ctxpkg registry token list --data ./registry-data', 'ctxpkg registry token list --namespace acme --data ./registry-data --json', 'ctxpkg registry token list --registry https://ctx.example.com/api']))
    .action(
      ctx.action(async (opts: AdminFlags & { namespace?: string }) => {
        const list = await (await adminOps(opts, ctx.deps, opts.namespace)).listTokens(opts.namespace);
        // npm token list's layout: a header row and one column per fact (new-user 2 item 15).
        const now = ctx.deps.clock().toISOString();
        const state = (t: (typeof list)[number]) => (t.revoked_at ? `revoked ${t.revoked_at}` : t.expires_at && t.expires_at <= now ? 'expired' : 'active');
        const rows = list.map((t) => [t.id, t.namespace ?? '(registry)', t.scope, state(t), t.expires_at ?? 'never', t.label ?? '']);
        return { text: list.length ? alignColumns([['ID', 'NAMESPACE', 'SCOPE', 'STATE', 'EXPIRES', 'LABEL'], ...rows]) : ['no tokens'], json: list };
      }),
    );
}

function registerKey(reg: Command, ctx: CommandContext): void {
  const key = reg.command('key').description('manage the signer keys allowed to publish into a namespace');
  for (const [verb, desc] of [['add', 'allow a signer key (64 hex) to publish into the namespace'], ['revoke', 'stop accepting a signer key']] as const) {
    adminOpt(ctx.command(key, `${verb} <namespace> <public-key>`, desc))
      .addHelpText('after', examples([`ctxpkg registry key ${verb} acme 197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61 --data ./registry-data`]) + (verb === 'add' ? '\nThe public key is the one `ctxpkg keygen` prints (64 hex).\n' : ''))
      .action(
      ctx.action(async (ns: string, publicKey: string, opts: AdminFlags) => {
        const { signerLabel } = await import('../signer-label.js');
        const ops = await adminOps(opts, ctx.deps, ns);
        const k = verb === 'add' ? await ops.addKey(ns, publicKey) : await ops.revokeKey(ns, publicKey);
        return { text: [`${verb === 'add' ? 'added' : 'revoked'} key ${signerLabel(k.public_key, { full: true })} for namespace ${k.namespace}`], json: k };
      }),
    );
  }
  adminOpt(ctx.command(key, 'list <namespace>', 'list signer keys of a namespace'))
    .addHelpText('after', examples(['ctxpkg registry key list acme --data ./registry-data']))
    .action(
    ctx.action(async (ns: string, opts: AdminFlags) => {
      const list = await (await adminOps(opts, ctx.deps, ns)).listKeys(ns);
      const { signerLabel } = await import('../signer-label.js');
      return {
        text: list.length ? list.map((k) => `${signerLabel(k.public_key, { full: true })}\t${k.added_by}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}`) : ['no keys (the first publish records one)'],
        json: list,
      };
    }),
  );
}

function registerBackup(reg: Command, ctx: CommandContext): void {
  dataOpt(ctx.command(reg, 'backup', 'write a consistent online snapshot (metadata and blobs) to a file'))
    .requiredOption('--out <file>', 'the backup file to write (replaced atomically when complete)')
    .addHelpText('after', examples(['ctxpkg registry backup --data /var/lib/ctxpkg --out /backups/ctxpkg-$(date +%F).backup', 'ctxpkg registry backup --db postgres://ctxpkg@db:5432/ctxpkg --out ctxpkg.backup']) + '\nSafe while servers run. Restore with `ctxpkg registry restore FILE --data <new dir>` (or --db).\n')
    .action(
      ctx.action(async (opts: { data?: string; db?: string; out: string }) => {
        const out = resolve(ctx.deps.cwd, opts.out);
        const r = await onRegistry(opts, ctx.deps, async (where) => (await load()).backupRegistry(where, out));
        return { text: [`wrote ${out}: ${r.rows} rows, ${r.blobs} blobs (${r.blob_bytes} bytes)`], json: { file: out, ...r } };
      }),
    );
  dataOpt(ctx.command(reg, 'restore <file>', 'check a backup completely, then restore it into an empty data directory or database'))
    .addHelpText('after', examples(['ctxpkg registry restore ctxpkg.backup --data ./restored-registry', 'ctxpkg registry restore ctxpkg.backup --db postgres://ctxpkg@db:5432/ctxpkg_new']) + '\nEvery blob is checked against its hash and the index before anything is written;\na damaged or truncated backup is refused and nothing is written.\n')
    .action(
      ctx.action(async (file: string, opts: { data?: string; db?: string }) => {
        const db = opts.db ?? (opts.data === undefined ? ctx.deps.env.CTXPKG_REGISTRY_DB : undefined);
        const where = db ? adminLocation({ db, data: opts.data }, ctx.deps).where : { dataDir: dataDirOf(opts.data, ctx.deps) };
        const r = await (await load()).restoreRegistry(resolve(ctx.deps.cwd, file), where);
        return { text: restoreReport(r, 'db' in where ? { db: where.db } : { data: opts.data ?? ctx.deps.env.CTXPKG_REGISTRY_DATA ?? where.dataDir }), json: r };
      }),
    );
  dataOpt(ctx.command(reg, 'verify', 'check that every stored version and blob is present and hashes to its name'))
    .addHelpText('after', examples(['ctxpkg registry verify --data /var/lib/ctxpkg', 'ctxpkg registry verify --db postgres://ctxpkg@db:5432/ctxpkg --json']) + '\nExit codes: 0 every blob intact; 1 a damaged or missing blob (listed).\n')
    .action(
      ctx.action(async (opts: { data?: string; db?: string }) => {
        const r = await onRegistry(opts, ctx.deps, async (where) => (await load()).verifyRegistry(where));
        const lines = [`${r.versions} versions, ${r.blobs} blobs checked: ${r.problems.length === 0 ? 'all intact' : `${r.problems.length} problem(s)`}`];
        for (const p of r.problems) {
          lines.push(`${p.problem} ${p.kind} ${p.sha256} of ${p.versions.join(', ') || 'no version'}${p.kind === 'package-blob' ? ' (re-extracted from its artifact when read)' : ''}`);
        }
        const broken = r.problems.some((p) => p.kind === 'artifact');
        const onDb = Boolean(opts.db ?? (opts.data === undefined ? ctx.deps.env.CTXPKG_REGISTRY_DB : undefined));
        if (broken) {
          // What to do: clients refuse these bytes (their hash is in the index and the log), so the
          // versions cannot be installed until the stored bytes are the published ones again.
          lines.push(
            'clients cannot install these versions (the bytes no longer hash to what the index and the log say); put the published bytes back from a backup taken before the damage: ' +
              (onDb
                ? 'restore it into a new database (`ctxpkg registry restore FILE --db <new database>`) and serve that, redoing later changes (README "Restoring an older backup")'
                : 'restore it into a scratch directory (`ctxpkg registry restore FILE --data <scratch dir>`) and replace each damaged file, blobs/sha256/<first 2 hex>/<next 2 hex>/<hash>, with the scratch directory\'s — blobs are addressed by content, so nothing else changes'),
          );
        }
        return { text: lines, json: r, exitCode: broken ? 1 : 0 };
      }),
    );
}

/**
 * What `registry restore` prints: what was restored, how old it is (the backup's last change and
 * log size), the command that serves it, and — since anything the registry did after the backup
 * is gone — what clients that saw later changes will say (README "Restoring an older backup").
 * `at` is the store as the user named it; a database URL is shown without its password.
 */
function restoreReport(r: Awaited<ReturnType<Registry['restoreRegistry']>>, at: { data: string } | { db: string }): string[] {
  const flag = 'data' in at ? `--data ${at.data}` : `--db ${at.db.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/i, '$1:***@')}`;
  const lines = [`restored ${r.rows} rows and ${r.blobs} blobs (${r.blob_bytes} bytes), every blob checked`];
  const log = r.log ? `; its transparency log ${r.log.origin} ends at tree size ${r.log.size}` : '; it has no transparency log (serving it starts one)';
  lines.push(`the backup's last change: ${r.last_change_at ?? 'none'}${log}`);
  lines.push(`next: stop every server of the old store, then serve this one: \`ctxpkg registry serve ${flag}\` (with your usual --host, --port, --public-url)`);
  if (r.log) {
    lines.push(
      `anything published, yanked or changed after ${r.last_change_at ?? 'the backup'} is gone: clients that saw a log larger than ${r.log.size} entries refuse this registry (E_LOG_INCONSISTENT, a rollback) until those changes are made again in the same order — see "Restoring an older backup" in the README`,
    );
  }
  return lines;
}

/** Register `ctxpkg registry` and its subcommands. */
export function register(program: Command, ctx: CommandContext): void {
  const reg = program.command('registry').description('run and administer a ctxpkg registry');
  registerServe(reg, ctx);
  registerNamespace(reg, ctx);
  registerToken(reg, ctx);
  registerKey(reg, ctx);
  registerBackup(reg, ctx);
  registerRegistryLog(reg, ctx, dataOpt);
  adminOpt(ctx.command(reg, 'visibility <package> <visibility>', 'make a package public or private (all its versions)'))
    .addHelpText('after', examples(['ctxpkg registry visibility @acme/auth-context private --data ./registry-data', 'ctxpkg registry visibility @acme/auth-context public --registry https://ctx.example.com/api']))
    .action(
    ctx.action(async (name: string, visibility: string, opts: AdminFlags) => {
      if (visibility !== 'public' && visibility !== 'private') throw new CtxpkgError('E_USAGE', 'visibility must be public or private');
      const p = await (await adminOps(opts, ctx.deps, /^@([^/]+)\//.exec(name)?.[1])).setVisibility(name, visibility);
      return { text: [`@${p.namespace}/${p.name} is now ${p.visibility}`], json: p };
    }),
  );
  adminOpt(ctx.command(reg, 'events', 'show the events log (who, what, when), newest first'))
    .option('--namespace <ns>', 'only this namespace (an owner token reads only its own)')
    .option('--limit <n>', 'how many events', '50')
    .addHelpText('after', examples(['ctxpkg registry events --data ./registry-data', 'ctxpkg registry events --namespace acme --limit 10 --data ./registry-data --json', 'ctxpkg registry events --registry https://ctx.example.com/api']) + '\nWho is a token id (tok_…; `ctxpkg registry token list` names it) or `local admin` (a command run on the server).\n')
    .action(
      ctx.action(async (opts: AdminFlags & { namespace?: string; limit: string }) => {
        const limit = intOption('--limit', opts.limit, 1, 10_000) as number;
        const list = await (await adminOps(opts, ctx.deps, opts.namespace)).events({ namespace: opts.namespace, limit });
        // A header row, and the actor (BY) apart from what was acted on (TARGET: the package, token id, key, …).
        const target = (e: (typeof list)[number]) => [e.name ? `@${e.namespace}/${e.name}${e.version ? '@' + e.version : ''}` : '', e.detail ?? ''].filter(Boolean).join(' ');
        const rows = list.map((e) => [e.at, e.action, e.namespace ?? '(registry)', e.actor, target(e)]);
        return { text: list.length ? alignColumns([['WHEN', 'ACTION', 'NAMESPACE', 'BY', 'TARGET'], ...rows]) : ['no events'], json: list };
      }),
    );
  adminOpt(ctx.command(reg, 'gc', 'remove stored blobs no version references'))
    .option('--grace <duration>', 'only blobs older than this (90m, 12h, 1d)', '1h')
    .addHelpText('after', examples(['ctxpkg registry gc --data ./registry-data', 'ctxpkg registry gc --grace 1d --registry https://ctx.example.com/api']))
    .action(
      ctx.action(async (opts: AdminFlags & { grace: string }) => {
        const m = /^([0-9]{1,6})([mhd])$/.exec(opts.grace);
        if (!m) throw new CtxpkgError('E_USAGE', '--grace must look like 90m, 12h or 1d');
        const ms = Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'];
        const r = await (await adminOps(opts, ctx.deps)).gc(ms);
        return { text: [`removed ${r.removed} unreferenced file(s)`], json: r };
      }),
    );
}

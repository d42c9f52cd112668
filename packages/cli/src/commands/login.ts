/**
 * `ctxpkg login --registry URL`: read a token from stdin (piped) or a prompt (TTY, not echoed)
 * and save it for that registry only, in the user config (mode 0600). `--scope @ns` saves it as
 * the token of that scope on the registry, beside (never over) the tokens of other scopes and the
 * registry-wide one (registry tokens are namespace-scoped: a member of two namespaces needs two),
 * and binds the scope to the registry; without `--scope` it is the registry-wide token, and the
 * registry becomes the user's default registry when none is set (as `npm login --registry` users
 * expect `npm search` to use it). Replacing the token saved for the same (registry, scope) says so.
 *
 * Before saving, the token's shape is checked (`ctxp_`/`ctxr_` + 43 characters, spec/registry.md
 * §9), then the URL and the token with one authenticated request (`GET /v1/index.json?limit=1`):
 * a refused token is `E_AUTH`, an unreachable URL `E_NETWORK`, and a URL that does not answer
 * with the registry catalog (a wrong path, another server) `E_REGISTRY`; in each case nothing is
 * saved, so a typo never replaces a working binding. The registry also names the token's
 * namespace (`GET /v1/whoami`): a `--scope` of another namespace is `E_USAGE` (nothing saved, the
 * scope's saved token kept; a typo of the namespace is named as such), except for an admin token,
 * which belongs to no namespace. `--no-verify` skips the checks. The token text is
 * never printed.
 */
import type { Command } from 'commander';
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format/errors';
import type { RegistryClient } from '../client.js';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export interface LoginOptions {
  registry?: string;
  scope?: string;
  /** `false` with `--no-verify`: save without asking the registry. */
  verify?: boolean;
}

/** Read all of stdin (or one line from a TTY prompt with echo off) as UTF-8. */
async function readToken(deps: CliDeps): Promise<string> {
  const stdin = deps.stdin;
  if (stdin.isTTY) {
    deps.stderr.write('token: ');
    const tty = stdin as NodeJS.ReadStream;
    tty.setRawMode?.(true);
    return new Promise((resolvePromise) => {
      let buf = '';
      const onData = (d: Buffer | string): void => {
        for (const ch of d.toString('utf8')) {
          if (ch === '\r' || ch === '\n' || ch === '\u0004') {
            tty.setRawMode?.(false);
            stdin.removeListener('data', onData);
            stdin.pause();
            deps.stderr.write('\n');
            resolvePromise(buf);
            return;
          }
          if (ch === '\u0003') {
            tty.setRawMode?.(false);
            stdin.removeListener('data', onData);
            stdin.pause();
            resolvePromise('');
            return;
          }
          buf += ch === '\u007f' ? '' : ch;
          if (ch === '\u007f') buf = buf.slice(0, -1);
        }
      };
      stdin.on('data', onData);
      stdin.resume();
    });
  }
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Refuse text that is not a token (`shape`: config.ts `TOKEN_SHAPE`), without echoing it. Throws `E_USAGE`. */
function checkTokenShape(token: string, registry: string, shape: RegExp): void {
  if (token === '') {
    throw new CtxpkgError('E_USAGE', 'no token given (expected one token on stdin)', { hint: `echo "$TOKEN" | ctxpkg login --registry ${registry}` });
  }
  if (!shape.test(token)) {
    const prefix = /^ctx[proa]_/.test(token) ? 'starts like a token but has the wrong length or characters' : 'does not start with ctxr_, ctxp_, ctxo_ or ctxa_';
    throw new CtxpkgError('E_USAGE', `the text read is not a registry token: it is ${token.length} characters and ${prefix}`, {
      hint: 'tokens are ctxr_ (read), ctxp_ (publish), ctxo_ (namespace owner) or ctxa_ (admin) followed by 43 characters, as printed once by `ctxpkg registry token create`; pipe exactly that text',
    });
  }
}

const NO_VERIFY = 'pass --no-verify to save it without checking (for a registry that is not reachable from here yet)';

/**
 * Check `registry` and `token` (no other token is sent: the settings hold only this one).
 * Returns a line for the output and, when the registry names it (`GET /v1/whoami`), the token's
 * namespace. Throws, with "nothing was saved": `E_AUTH` when the registry
 * refuses the token, `E_NETWORK` when nothing answers at the URL, `E_REGISTRY` when what answers
 * is not a ctxpkg registry's API (spec/registry.md catalog route).
 */
async function verifyToken(registry: string, token: string, deps: CliDeps): Promise<{ line: string; namespace?: string }> {
  const { RegistryClient } = await import('../client.js');
  const client = new RegistryClient({
    fetch: deps.fetch,
    settings: { project: { registries: {} }, user: { registries: {}, tokens: { [registry]: token } }, env: {} },
  });
  const scope = ({ ctxp_: 'publish', ctxo_: 'owner', ctxa_: 'admin' } as Record<string, string>)[token.slice(0, 5)] ?? 'read';
  let r: Awaited<ReturnType<RegistryClient['checkToken']>>;
  try {
    r = await client.checkToken(registry);
  } catch (err) {
    if (isCtxpkgError(err) && (err.code === 'E_AUTH' || err.code === 'E_FORBIDDEN')) {
      throw new CtxpkgError('E_AUTH', `${registry} refused this token (unknown, revoked or expired); nothing was saved`, {
        hint: `ask the registry owner for a new ${scope} token (\`ctxpkg registry token create ${scope === 'admin' ? '' : '--namespace <ns> '}--scope ${scope}\`; a read token is enough to install) and run login again`,
      });
    }
    if (isCtxpkgError(err) && (err.code === 'E_NETWORK' || err.code === 'E_REGISTRY')) {
      throw new CtxpkgError(err.code, `could not check the token: ${err.message}; nothing was saved`, {
        hint: `${err.hint ? `${err.hint}; ` : ''}check the scheme (http or https), host and port of the URL; ${NO_VERIFY}`,
        details: { ...err.details, registry },
      });
    }
    throw err;
  }
  if (!r.ok) {
    throw new CtxpkgError('E_REGISTRY', `${registry} is not a ctxpkg registry API: GET ${registry}/v1/index.json answered ${r.answer}; nothing was saved`, {
      hint: `use the API URL that \`ctxpkg registry serve\` prints (it ends in /api, e.g. http://127.0.0.1:4873/api); ${NO_VERIFY}`,
      details: { registry, answer: r.answer },
    });
  }
  // Which namespace the token belongs to (GET /v1/whoami); an older registry without the route
  // answers 404 and the check is skipped.
  const who = await client.whoami(registry);
  if (!who) return { line: `the registry accepted the token (${scope} scope)` };
  return { line: `the registry accepted the token (${who.scope} token of @${who.namespace})`, namespace: who.namespace };
}

/**
 * `--scope` against the namespace the token belongs to (an admin token belongs to none: whoami
 * names no namespace, and it is not checked). Any other namespace is `E_USAGE`, nothing saved
 * (new-user trial 2, item 1): saving it would replace the working token of `scope` (one token per
 * (registry, scope)) with one that reads only the scope's public packages and cannot publish
 * there, so the next install of a private package fails `E_NOT_FOUND`. A near-miss of the
 * namespace (cargo's typo distance, suggest.ts) is named as the likely typo; otherwise the hint
 * is the login for the token's own scope. `--no-verify` skips the check (the escape both name).
 */
async function checkScopeAgainstToken(scope: string, namespace: string, registry: string): Promise<void> {
  if (scope === `@${namespace}`) return;
  const { closest } = await import('../suggest.js');
  const typo = closest(scope.slice(1), [namespace]).length > 0;
  const message = typo
    ? `--scope ${scope} does not match the token: it belongs to namespace @${namespace}; did you mean --scope @${namespace}? nothing was saved`
    : `--scope ${scope} does not match the token: it belongs to namespace @${namespace}, so it cannot read ${scope}'s private packages or publish there; nothing was saved (any token already saved for ${scope} is kept)`;
  throw new CtxpkgError('E_USAGE', message, {
    hint: typo
      ? `ctxpkg login --registry ${registry} --scope @${namespace} (to bind ${scope} to this registry anyway, add --no-verify)`
      : `ctxpkg login --registry ${registry} --scope @${namespace} (this token's own scope); for ${scope}, log in with a token of ${scope} (an owner of ${scope} creates one: \`ctxpkg registry token create --namespace ${scope.slice(1)} --scope read\`); --no-verify binds ${scope} with this token anyway`,
    details: { scope, token_namespace: namespace, registry },
  });
}

/**
 * Save a token for one registry. Throws `E_USAGE` (no registry, no token, not a token, a
 * `--scope` other than the token's namespace), and,
 * unless `opts.verify === false`, `E_AUTH` (token refused), `E_NETWORK` (unreachable) or
 * `E_REGISTRY` (not a registry API); nothing is saved when it throws.
 */
export async function runLogin(opts: LoginOptions, deps: CliDeps): Promise<CommandResult> {
  const { checkScope, loadUserConfig, normalizeRegistryUrl, sameRegistry, savedTokensOf, saveUserConfig, TOKEN_SHAPE } = await import('../config.js');
  const raw = opts.registry ?? deps.env.CTXPKG_REGISTRY;
  if (!raw) throw new CtxpkgError('E_USAGE', 'login needs --registry URL', { hint: 'ctxpkg login --registry https://registry.example.com/api' });
  const registry = normalizeRegistryUrl(raw);
  const scope = opts.scope === undefined ? undefined : checkScope(opts.scope);
  const token = (await readToken(deps)).trim();
  checkTokenShape(token, registry, TOKEN_SHAPE);
  const checked = opts.verify === false ? undefined : await verifyToken(registry, token, deps);
  if (scope && checked?.namespace !== undefined) await checkScopeAgainstToken(scope, checked.namespace, registry);
  const cfg = loadUserConfig(deps);
  // One entry per (registry, scope): a token saved for the same scope (or, without --scope, the
  // registry-wide token) under this or another spelling of the registry (with or without /api) is
  // replaced, not kept beside this one. Tokens of other scopes stay.
  let replaced: string[];
  let sameToken = false;
  if (scope) {
    const scoped = (cfg.scopedTokens ??= {});
    replaced = Object.keys(scoped).filter((k) => sameRegistry(k, registry) && scoped[k]?.[scope] !== undefined).sort();
    for (const k of replaced) {
      sameToken ||= scoped[k]![scope] === token;
      delete scoped[k]![scope];
      if (Object.keys(scoped[k]!).length === 0) delete scoped[k];
    }
    (scoped[registry] ??= {})[scope] = token;
    cfg.registries[scope] = registry;
  } else {
    replaced = Object.keys(cfg.tokens).filter((k) => sameRegistry(k, registry)).sort();
    for (const k of replaced) {
      sameToken ||= cfg.tokens[k] === token;
      delete cfg.tokens[k];
    }
    cfg.tokens[registry] = token;
  }
  const previousDefault = cfg.registry;
  const madeDefault = !scope && previousDefault === undefined;
  if (madeDefault) cfg.registry = registry;
  const path = saveUserConfig(deps, cfg);
  const which = scope ? `the token of ${scope}` : 'the registry-wide token';
  const text = [`saved a token for ${registry}${scope ? ` scope ${scope}` : ' (registry-wide: for every scope without a token of its own)'} in ${path} (mode 0600)`];
  const others = replaced.filter((k) => k !== registry);
  if (replaced.length > 0) {
    text.push(
      sameToken && others.length === 0
        ? `${which} saved for ${registry} was already this token`
        : `replaced ${which} saved for ${replaced.join(', ')}${others.length > 0 ? ' (the same registry)' : ''}`,
    );
  }
  const kept = savedTokensOf(cfg, registry).filter((t) => t.scope !== scope).map((t) => t.scope ?? 'registry-wide');
  if (kept.length > 0) text.push(`kept the other tokens saved for ${registry}: ${kept.join(', ')}`);
  text.push(checked?.line ?? 'the token was not checked (--no-verify)');
  if (scope) text.push(`scope ${scope} → ${registry}`);
  if (madeDefault) text.push(`default registry set to ${registry} (used by search and for packages whose scope has no registry)`);
  else if (!scope && previousDefault !== registry) text.push(`your default registry stays ${previousDefault}; pass --scope @ns to send a scope's packages to ${registry}`);
  return {
    text,
    json: {
      registry, config: path, scope: scope ?? null, default_registry: cfg.registry ?? null, default_set: madeDefault, token_checked: checked !== undefined,
      replaced: replaced.length > 0, other_tokens: kept,
      token_namespace: checked?.namespace !== undefined ? `@${checked.namespace}` : null,
    },
  };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'login', 'save a registry token (read from stdin or a prompt) for one registry, or for one scope on it')
    .option('--registry <url>', 'the registry the token belongs to (default: CTXPKG_REGISTRY)')
    .option('--scope <@ns>', "save the token for this scope's packages (beside other scopes' tokens) and use this registry for them (without it: the registry-wide token, and the registry becomes your default when none is set)")
    .option('--no-verify', 'save without checking the URL and the token with the registry (by default nothing is saved unless the registry accepts the token)')
    .addHelpText('after', examples(['echo "$TOKEN" | ctxpkg login --registry https://registry.example.com/api', 'ctxpkg login --registry https://r.example/api --scope @acme', 'echo "$VENDOR_TOKEN" | ctxpkg login --registry https://r.example/api --scope @vendor   # kept beside @acme\'s token']))
    .action(ctx.action(async (opts: LoginOptions) => runLogin(opts, ctx.deps)));
}

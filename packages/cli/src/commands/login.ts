/**
 * `ctxpkg login --registry URL`: read a token from stdin (piped) or a prompt (TTY, not echoed)
 * and save it for that registry only, in the user config (mode 0600). `--scope @ns` also binds
 * the scope to the registry; without `--scope`, the registry becomes the user's default registry
 * when none is set (as `npm login --registry` users expect `npm search` to use it).
 *
 * Before saving, the token's shape is checked (`ctxp_`/`ctxr_` + 43 characters, spec/registry.md
 * §9) and, when the registry answers, the token itself with one authenticated request
 * (`GET /v1/index.json?limit=1`): a refused token is `E_AUTH` and nothing is saved; an unreachable
 * registry saves the token with a warning. The token text is never printed.
 */
import type { Command } from 'commander';
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format';
import { RegistryClient } from '../client.js';
import { checkScope, loadUserConfig, normalizeRegistryUrl, saveUserConfig, TOKEN_SHAPE } from '../config.js';
import type { CliDeps } from '../deps.js';
import type { CommandResult } from '../output.js';
import type { CommandContext } from '../program.js';
import { examples } from '../session.js';

export interface LoginOptions {
  registry?: string;
  scope?: string;
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

/** Refuse text that is not a token, without echoing it. Throws `E_USAGE`. */
function checkTokenShape(token: string, registry: string): void {
  if (token === '') {
    throw new CtxpkgError('E_USAGE', 'no token given (expected one token on stdin)', { hint: `echo "$TOKEN" | ctxpkg login --registry ${registry}` });
  }
  if (!TOKEN_SHAPE.test(token)) {
    const prefix = /^ctx[pr]_/.test(token) ? 'starts like a token but has the wrong length or characters' : 'does not start with ctxp_ or ctxr_';
    throw new CtxpkgError('E_USAGE', `the text read is not a registry token: it is ${token.length} characters and ${prefix}`, {
      hint: 'tokens are ctxp_ (publish) or ctxr_ (read) followed by 43 characters, as printed once by `ctxpkg registry token create`; pipe exactly that text',
    });
  }
}

/**
 * Check `token` against `registry` (no other token is sent: the settings hold only this one).
 * Returns a line for the output or a warning. Throws `E_AUTH` when the registry refuses it.
 */
async function verifyToken(registry: string, token: string, deps: CliDeps): Promise<{ line?: string; warning?: string }> {
  const client = new RegistryClient({
    fetch: deps.fetch,
    settings: { project: { registries: {} }, user: { registries: {}, tokens: { [registry]: token } }, env: {} },
  });
  try {
    const r = await client.checkToken(registry);
    return r === 'valid' ? { line: `the registry accepted the token (${token.startsWith('ctxp_') ? 'publish' : 'read'} scope)` } : { warning: `${registry} has no route to check tokens; saved the token unchecked` };
  } catch (err) {
    if (isCtxpkgError(err) && (err.code === 'E_NETWORK' || err.code === 'E_REGISTRY')) {
      return { warning: `could not check the token (${err.message}); saved it unchecked` };
    }
    if (isCtxpkgError(err) && err.code === 'E_AUTH') {
      throw new CtxpkgError('E_AUTH', `${registry} refused this token (unknown, revoked or expired); nothing was saved`, {
        hint: `ask the registry owner for a new ${token.startsWith('ctxp_') ? 'publish' : 'read'} token (\`ctxpkg registry token create --namespace <ns> --scope ${token.startsWith('ctxp_') ? 'publish' : 'read'} --data <dir>\`; a read token is enough to install) and run login again`,
      });
    }
    throw err;
  }
}

/**
 * Save a token for one registry. Throws `E_USAGE` (no registry, no token, not a token),
 * `E_AUTH` (the registry refused the token; nothing saved).
 */
export async function runLogin(opts: LoginOptions, deps: CliDeps): Promise<CommandResult> {
  const raw = opts.registry ?? deps.env.CTXPKG_REGISTRY;
  if (!raw) throw new CtxpkgError('E_USAGE', 'login needs --registry URL', { hint: 'ctxpkg login --registry https://registry.example.com/api' });
  const registry = normalizeRegistryUrl(raw);
  const scope = opts.scope === undefined ? undefined : checkScope(opts.scope);
  const token = (await readToken(deps)).trim();
  checkTokenShape(token, registry);
  const checked = await verifyToken(registry, token, deps);
  const cfg = loadUserConfig(deps);
  cfg.tokens[registry] = token;
  if (scope) cfg.registries[scope] = registry;
  const previousDefault = cfg.registry;
  const madeDefault = !scope && previousDefault === undefined;
  if (madeDefault) cfg.registry = registry;
  const path = saveUserConfig(deps, cfg);
  const text = [`saved a token for ${registry} in ${path} (mode 0600)`];
  if (checked.line) text.push(checked.line);
  if (scope) text.push(`scope ${scope} → ${registry}`);
  if (madeDefault) text.push(`default registry set to ${registry} (used by search and for packages whose scope has no registry)`);
  else if (!scope && previousDefault !== registry) text.push(`your default registry stays ${previousDefault}; pass --scope @ns to send a scope's packages to ${registry}`);
  return {
    text,
    json: { registry, config: path, scope: scope ?? null, default_registry: cfg.registry ?? null, default_set: madeDefault, token_checked: checked.line !== undefined },
    ...(checked.warning ? { warnings: [checked.warning] } : {}),
  };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'login', 'save a registry token (read from stdin or a prompt) for one registry')
    .option('--registry <url>', 'the registry the token belongs to (default: CTXPKG_REGISTRY)')
    .option('--scope <@ns>', 'also use this registry for packages of the scope (without it, the registry becomes your default when none is set)')
    .addHelpText('after', examples(['echo "$TOKEN" | ctxpkg login --registry https://registry.example.com/api', 'ctxpkg login --registry https://r.example/api --scope @acme']))
    .action(ctx.action(async (opts: LoginOptions) => runLogin(opts, ctx.deps)));
}

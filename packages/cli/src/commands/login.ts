/**
 * `ctxpkg login --registry URL`: read a token from stdin (piped) or a prompt (TTY, not echoed)
 * and save it for that registry only, in the user config (mode 0600). `--scope @ns` also binds
 * the scope to the registry.
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format';
import { checkScope, loadUserConfig, normalizeRegistryUrl, saveUserConfig } from '../config.js';
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

/** Save a token for one registry. Throws `E_USAGE` for a missing registry or empty token. */
export async function runLogin(opts: LoginOptions, deps: CliDeps): Promise<CommandResult> {
  const raw = opts.registry ?? deps.env.CTXPKG_REGISTRY;
  if (!raw) throw new CtxpkgError('E_USAGE', 'login needs --registry URL', { hint: 'ctxpkg login --registry https://registry.example.com/api' });
  const registry = normalizeRegistryUrl(raw);
  const token = (await readToken(deps)).trim();
  if (token === '' || /\s/.test(token)) {
    throw new CtxpkgError('E_USAGE', 'no token given (expected one token on stdin)', { hint: 'echo "$TOKEN" | ctxpkg login --registry URL' });
  }
  const cfg = loadUserConfig(deps);
  cfg.tokens[registry] = token;
  if (opts.scope) cfg.registries[checkScope(opts.scope)] = registry;
  const path = saveUserConfig(deps, cfg);
  return {
    text: [`saved a token for ${registry} in ${path} (mode 0600)`, ...(opts.scope ? [`scope ${opts.scope} → ${registry}`] : [])],
    json: { registry, config: path, scope: opts.scope ?? null },
  };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'login', 'save a registry token (read from stdin or a prompt) for one registry')
    .option('--registry <url>', 'the registry the token belongs to (default: CTXPKG_REGISTRY)')
    .option('--scope <@ns>', 'also use this registry for packages of the scope')
    .addHelpText('after', examples(['echo "$TOKEN" | ctxpkg login --registry https://registry.example.com/api', 'ctxpkg login --registry https://r.example/api --scope @acme']))
    .action(ctx.action(async (opts: LoginOptions) => runLogin(opts, ctx.deps)));
}

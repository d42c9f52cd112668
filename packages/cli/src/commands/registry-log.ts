/**
 * `ctxpkg registry log …` — the registry side of the transparency log (spec/transparency.md §7):
 *
 *   registry log verify   replay the whole log against the database and the blobs (exit 1 on any disagreement)
 *   registry log key      the log's origin and verifier key (what clients pin; publish it)
 *
 * Both take `--data <dir>` or `--db <url>` like every admin command. `@ctxpkg/registry` is
 * imported only inside the actions.
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import { examples, type CommandContext } from '../command.js';
import { onRegistry } from './registry-admin.js';

const load = () => import('@ctxpkg/registry');

/**
 * `--witness <vkey>=<url>` values, split at the first `=` after the key (the vkey's base64 may end
 * in `=`, so the split is at the `=` that starts `http`). Checked by the registry when it starts.
 */
export function witnessFlags(values: readonly string[]): Array<{ vkey: string; url: string }> {
  return values.map((v) => {
    const at = v.search(/=https?:\/\//);
    if (at < 0) throw new CtxpkgError('E_USAGE', `--witness needs <vkey>=<url>, got ${JSON.stringify(v.slice(0, 120))}`);
    return { vkey: v.slice(0, at), url: v.slice(at + 1) };
  });
}

/** Register `registry log verify` and `registry log key` under `reg`. */
export function registerRegistryLog(reg: Command, ctx: CommandContext, dataOpt: (c: Command) => Command): void {
  const log = reg.command('log').description("check and show the registry's transparency log");
  dataOpt(ctx.command(log, 'verify', 'replay the transparency log against the database and the blobs'))
    .addHelpText('after', examples(['ctxpkg registry log verify --data ./registry-data', 'ctxpkg registry log verify --db postgres://ctxpkg@db:5432/ctxpkg --json']))
    .action(
      ctx.action(async (opts: { data?: string; db?: string }) => {
        const r = await onRegistry(opts, ctx.deps, async (where) => (await load()).verifyLog(where));
        if (r.problems.length > 0) {
          throw new CtxpkgError('E_LOG_INCONSISTENT', `the transparency log and the registry disagree: ${r.problems.length} problem(s); first: ${r.problems[0]}`, {
            hint: 'restore the registry from a backup taken before the damage, or investigate who changed the database outside ctxpkg',
            details: { ...r },
          });
        }
        return {
          text: [`log ${r.origin}: ${r.size} entries, ${r.checkpoints} checkpoints and ${r.versions} versions agree with the database and the blobs`],
          json: r,
        };
      }),
    );
  dataOpt(ctx.command(log, 'key', "print the log's origin and verifier key (clients pin it on first use)"))
    .addHelpText('after', examples(['ctxpkg registry log key --data ./registry-data']))
    .action(
      ctx.action(async (opts: { data?: string; db?: string }) => {
        const k = await onRegistry(opts, ctx.deps, async (where) => (await load()).logKey(where));
        return { text: [k.key, `origin ${k.origin}, ${k.size} entries`], json: k };
      }),
    );
}

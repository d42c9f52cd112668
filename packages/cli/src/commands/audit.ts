/**
 * `ctxpkg audit` — re-verify everything in ctxpkg.lock against the registries' transparency logs
 * (spec/transparency.md §5.4): for each locked registry package, its index and the latest
 * checkpoint are fetched and checked as `install` checks them (log key, consistency with the
 * checkpoint you saw before, freshness, inclusion of the publish entry, signer keyset, yank entry),
 * and the lock's record must name the same publish entry and a tree consistent with the latest.
 * Every package is checked; all problems are reported. Writes only the per-user log state.
 */
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export interface AuditOptions {
  registry?: string;
  strict?: boolean;
  logMaxAge?: string;
}

/** One audited package. */
export interface AuditLine {
  name: string;
  version: string;
  registry: string;
  /** `ok`, `no-log` (its registry keeps none), `not-recorded` (locked before the log), or `failed`. */
  status: 'ok' | 'no-log' | 'not-recorded' | 'failed';
  index?: number;
  tree_size?: number;
  yanked?: boolean;
  error?: { code: string; message: string };
}

/**
 * Audit ctxpkg.lock. Returns every package's result; throws the first failure's code (with all
 * failures in `details.failures`) when any package failed, `E_LOG_STALE` under `--strict`.
 */
export async function runAudit(opts: AuditOptions, deps: CliDeps): Promise<CommandResult> {
  const { CtxpkgError, isCtxpkgError } = await import('@ctxpkg/format');
  const { openSession } = await import('../session.js');
  const { readLock } = await import('../install/lockio.js');
  const { registryFor } = await import('../config.js');
  const { LogFetcher } = await import('../tlog/fetcher.js');
  const { LogChecker } = await import('../tlog/check.js');
  const { maxAgeSeconds } = await import('../install/transparency.js');
  const session = openSession(deps, opts.registry);
  if (!session.exists) throw new CtxpkgError('E_NOT_FOUND', 'no ctxpkg.json here or above; nothing to audit', { hint: 'run `ctxpkg audit` inside a project' });
  const lock = readLock(session.root).state;
  const checker = new LogChecker(new LogFetcher(session.client, session.settings), deps, { strict: opts.strict === true, maxAgeSeconds: maxAgeSeconds({ maxAge: opts.logMaxAge }, deps.env) });
  const lines: AuditLine[] = [];
  for (const e of [...lock.packages.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.registry.startsWith('file:')) continue;
    const registry = registryFor(e.name, session.settings);
    const line: AuditLine = { name: e.name, version: e.version, registry, status: 'ok' };
    try {
      const view = await checker.view(registry);
      if (!view) {
        line.status = 'no-log';
      } else {
        const idx = await session.client.index(registry, e.name);
        const entry = idx.versions.find((v) => v.version === e.version);
        if (!entry) throw new CtxpkgError('E_NOT_FOUND', `${e.name}@${e.version} is locked but its registry no longer lists it`);
        if (entry.artifact_sha256 !== e.artifact_sha256) {
          throw new CtxpkgError('E_LOG_PROOF', `${e.name}@${e.version}: ctxpkg.lock has artifact ${e.artifact_sha256}, the registry lists ${entry.artifact_sha256}`);
        }
        const r = await checker.checkVersion(view, idx, e.version, e.log ? { record: e.log, sameVersion: true } : undefined);
        if (e.signer_public_key !== '' && r.signer !== e.signer_public_key) {
          throw new CtxpkgError('E_LOG_PROOF', `${e.name}@${e.version}: ctxpkg.lock pins signer ${e.signer_public_key}, the log has ${r.signer}`);
        }
        line.index = r.record.index;
        line.tree_size = view.latest.size;
        line.yanked = entry.yanked;
        if (!e.log) line.status = 'not-recorded';
      }
    } catch (err) {
      if (!isCtxpkgError(err)) throw err;
      if (err.code === 'E_LOG_STALE' || err.code === 'E_NETWORK') throw err;
      line.status = 'failed';
      line.error = { code: err.code, message: err.message };
    }
    lines.push(line);
  }
  const failed = lines.filter((l) => l.status === 'failed');
  if (failed.length > 0) {
    const first = failed[0]!;
    throw new CtxpkgError(first.error!.code as never, `audit failed for ${failed.length} of ${lines.length} package(s):\n` + failed.map((f) => `  ${f.name}@${f.version}: ${f.error!.code} ${f.error!.message}`).join('\n'), {
      hint: 'do not trust these packages until the registry operator explains; keep the output as evidence',
      details: { failures: failed, packages: lines },
    });
  }
  await checker.save();
  const text = lines.map((l) =>
    l.status === 'ok'
      ? `ok ${l.name}@${l.version}: publish entry ${l.index} proven in tree ${l.tree_size}${l.yanked ? ' (yanked by its publisher)' : ''}`
      : l.status === 'not-recorded'
        ? `ok ${l.name}@${l.version}: publish entry ${l.index} proven in tree ${l.tree_size}; ctxpkg.lock has no log record for it yet (\`ctxpkg update ${l.name}\` or a new install records one)`
        : `-- ${l.name}@${l.version}: ${l.registry} keeps no transparency log; nothing to check`,
  );
  if (lines.length === 0) text.push('nothing to audit: ctxpkg.lock has no registry packages');
  else text.push(`audited ${lines.length} package(s): ${lines.filter((l) => l.status !== 'no-log').length} proven in their registry's log`);
  return { text, json: { packages: lines }, warnings: checker.warnings };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'audit', "re-verify ctxpkg.lock against the registries' transparency logs")
    .option('--registry <url>', 'registry for packages whose scope has no registry configured')
    .option('--strict', "fail (not warn) when a registry's transparency log looks frozen")
    .option('--log-max-age <age>', 'how old a log checkpoint may be before it counts as frozen (CTXPKG_LOG_MAX_AGE; default 24h)')
    .addHelpText(
      'after',
      examples(['ctxpkg audit', 'ctxpkg audit --strict --json']) +
        '\nExit codes: 0 every package is proven in its log; 1 a proof failed or the log forked or rolled back\n' +
        '(the message prints both checkpoints); 5 the log looks frozen (with --strict).\n',
    )
    .action(ctx.action(async (opts: AuditOptions) => runAudit(opts, ctx.deps)));
}

/**
 * `ctxpkg log …` — a consumer's and a monitor's view of a registry's transparency log
 * (spec/transparency.md §5.1, §7, §8):
 *
 *   log watch --namespace @acme [--registry URL] [--from N]   new entries about @acme since the last run
 *   log status [--registry URL]                               pinned key, last checkpoint, witnesses
 *   log witness add|remove <vkey> [--registry URL]            require (or stop requiring) a witness
 *
 * The registry is the one `@acme` is bound to (watch), else `--registry`, else the default one.
 */
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

/** One entry `log watch` lists. */
export interface WatchedEntry {
  index: number;
  /** The statement (`publish @acme/kb 1.0.0 …`), or `private` when not opened. */
  statement: string;
  private: boolean;
}

async function registryOf(deps: CliDeps, flag: string | undefined, namespace?: string): Promise<{ registry: string; session: import('../session.js').Session }> {
  const { openSession } = await import('../session.js');
  const { defaultRegistry, registryFor } = await import('../config.js');
  const session = openSession(deps, flag);
  const registry = namespace ? registryFor(`${namespace}/log-watch`, session.settings) : defaultRegistry(session.settings);
  return { registry, session };
}

/** `log watch`: verify and list the entries about `namespace` appended since the last run. */
export async function runWatch(opts: { namespace: string; registry?: string; from?: string }, deps: CliDeps): Promise<CommandResult> {
  const f = await import('@ctxpkg/format');
  const { LogFetcher } = await import('../tlog/fetcher.js');
  const { LogChecker, DEFAULT_MAX_AGE_SECONDS } = await import('../tlog/check.js');
  const { tokenFor } = await import('../config.js');
  const ns = opts.namespace.startsWith('@') ? opts.namespace : `@${opts.namespace}`;
  f.validateNamespaceClaim(ns.slice(1));
  const { registry, session } = await registryOf(deps, opts.registry, ns);
  const fetcher = new LogFetcher(session.client, session.settings);
  const checker = new LogChecker(fetcher, deps, { strict: false, maxAgeSeconds: DEFAULT_MAX_AGE_SECONDS });
  const view = await checker.view(registry);
  if (!view) throw new f.CtxpkgError('E_NOT_FOUND', `registry ${registry} keeps no transparency log`);
  const size = view.latest.size;
  let from = view.next.watch[ns] ?? 0;
  if (opts.from !== undefined) {
    if (!/^(0|[1-9][0-9]{0,15})$/.test(opts.from)) throw new f.CtxpkgError('E_USAGE', '--from must be a log index');
    from = Number(opts.from);
  }
  from = Math.min(from, size);
  // Entries from their bundles, each proven included in the latest checkpoint's tree.
  const entries: Array<{ index: number; bytes: Uint8Array }> = [];
  for (let b = Math.floor(from / f.TILE_WIDTH); b * f.TILE_WIDTH < size; b++) {
    const width = Math.min(f.TILE_WIDTH, size - b * f.TILE_WIDTH);
    const bundle = f.decodeEntryBundle(await fetcher.tile(registry, f.entryBundlePath(b, width)));
    if (bundle.length !== width) throw new f.CtxpkgError('E_LOG_PROOF', `entry bundle ${b} has ${bundle.length} entries, expected ${width}`);
    bundle.forEach((bytes, i) => {
      if (b * f.TILE_WIDTH + i >= from) entries.push({ index: b * f.TILE_WIDTH + i, bytes });
    });
  }
  const proofs = await f.computeFromTiles(size, view.fetchTile, (read) => entries.map((e) => f.inclusionProof(e.index, size, read)));
  entries.forEach((e, i) => f.verifyEntryInclusion(e.bytes, e.index, proofs[i]!, view.latest));
  const hasToken = tokenFor(registry, session.settings, ns) !== undefined;
  const openings = new Map<number, { entry: string; nonce: string }>();
  let unopened = 0;
  if (hasToken && entries.some((e) => f.parseLogEntry(e.bytes).kind === 'commitment')) {
    try {
      for (const o of await fetcher.openings(registry, ns, from)) openings.set(o.index, o);
    } catch (err) {
      if (!f.isCtxpkgError(err) || (err.code !== 'E_FORBIDDEN' && err.code !== 'E_AUTH')) throw err;
    }
  }
  const listed: WatchedEntry[] = [];
  for (const e of entries) {
    const logged = f.parseLogEntry(e.bytes);
    if (logged.kind === 'commitment') {
      const o = openings.get(e.index);
      if (!o) {
        unopened++;
        continue;
      }
      const s = f.openCommitment(logged, o);
      if (f.statementNamespace(s) === ns) listed.push({ index: e.index, statement: f.formatLogEntry(s).split('\n')[1]!, private: true });
    } else if (f.statementNamespace(logged) === ns) {
      listed.push({ index: e.index, statement: f.formatLogEntry(logged).split('\n')[1]!, private: false });
    }
  }
  view.next.watch = { ...view.next.watch, [ns]: size };
  await checker.save();
  const text = listed.map((l) => `#${l.index} ${l.statement}${l.private ? ' (private)' : ''}`);
  text.push(
    `${listed.length} new entr${listed.length === 1 ? 'y' : 'ies'} about ${ns} in ${registry}, log indexes ${from}–${size} (tree ${size} verified)` +
      (unopened > 0 ? `; ${unopened} private entr${unopened === 1 ? 'y' : 'ies'} ${hasToken ? 'not opened for you' : `not opened (log in with a token of ${ns} to see ${ns}'s)`}` : ''),
  );
  return { text, json: { registry, namespace: ns, from, to: size, entries: listed, unopened }, warnings: checker.warnings };
}

/** `log status`: what this user pinned for the registry and what it serves now. */
export async function runStatus(opts: { registry?: string }, deps: CliDeps): Promise<CommandResult> {
  const { readLogState, logStatePath } = await import('../tlog/state.js');
  const { LogFetcher } = await import('../tlog/fetcher.js');
  const f = await import('@ctxpkg/format');
  const { registry, session } = await registryOf(deps, opts.registry);
  const state = readLogState(deps, registry);
  const info = await new LogFetcher(session.client, session.settings).info(registry).catch(() => null);
  const cp = state?.checkpoint ? f.parseCheckpoint(f.parseNote(state.checkpoint).text) : undefined;
  const text = [
    `registry ${registry}`,
    `state file ${logStatePath(deps, registry)}`,
    state ? `pinned log key ${state.key}` : 'no log key pinned yet (the next install pins the one the registry presents)',
    ...(info ? [`the registry presents ${info.key}${state && state.key !== info.key ? '  (DIFFERENT from the pinned key)' : ''}, tree size ${info.size}`] : ['the registry serves no transparency log (or is unreachable)']),
    ...(cp ? [`last checkpoint you accepted: tree size ${cp.size}, root ${f.bytesToHex(cp.rootHash)}`] : []),
    ...(state?.witnesses.length ? state.witnesses.map((w) => `required witness ${w}`) : ['no witness required']),
    ...Object.entries(state?.watch ?? {}).map(([ns, n]) => `log watch ${ns}: next index ${n}`),
  ];
  return { text, json: { registry, state: state ?? null, served: info } };
}

/** `log witness add|remove`: require a witness's cosignature on this registry's checkpoints. */
export async function runWitness(verb: 'add' | 'remove', vkey: string, opts: { registry?: string }, deps: CliDeps): Promise<CommandResult> {
  const f = await import('@ctxpkg/format');
  const { readLogState, writeLogState } = await import('../tlog/state.js');
  const { LogFetcher } = await import('../tlog/fetcher.js');
  const v = f.parseVerifierKey(vkey);
  if (v.type !== f.SIG_COSIGNATURE_V1) throw new f.CtxpkgError('E_USAGE', 'a witness key is a cosignature vkey (type 0x04)', { hint: 'ask the witness operator for its cosigner vkey' });
  const { registry, session } = await registryOf(deps, opts.registry);
  let state = readLogState(deps, registry);
  if (!state) {
    const info = await new LogFetcher(session.client, session.settings).info(registry);
    if (!info) throw new f.CtxpkgError('E_NOT_FOUND', `registry ${registry} keeps no transparency log`);
    state = { registry, origin: info.origin, key: info.key, witnesses: [], watch: {}, packages: {} };
  }
  const witnesses = new Set(state.witnesses);
  if (verb === 'add') witnesses.add(vkey);
  else witnesses.delete(vkey);
  writeLogState(deps, { ...state, witnesses: [...witnesses] });
  return {
    text: [`${verb === 'add' ? 'now requiring' : 'no longer requiring'} a cosignature by ${v.name} on the checkpoints of ${registry}`],
    json: { registry, witnesses: [...witnesses].sort() },
  };
}

export function register(program: Command, ctx: CommandContext): void {
  const log = program.command('log').description("watch and check registries' transparency logs");
  ctx
    .command(log, 'watch', 'list new log entries about a namespace since the last run (verified against the log)')
    .requiredOption('--namespace <ns>', 'the namespace to watch (@acme)')
    .option('--registry <url>', 'the registry (default: the one the namespace is bound to)')
    .option('--from <index>', 'start at this log index instead of where the last run stopped')
    .addHelpText('after', examples(['ctxpkg log watch --namespace @acme', 'ctxpkg log watch --namespace @acme --from 0 --json']))
    .action(ctx.action(async (opts: { namespace: string; registry?: string; from?: string }) => runWatch(opts, ctx.deps)));
  ctx
    .command(log, 'status', "show the registry's pinned log key, your last checkpoint and required witnesses")
    .option('--registry <url>', 'the registry (default: your default registry)')
    .addHelpText('after', examples(['ctxpkg log status', 'ctxpkg log status --registry https://ctx.example.com/api']))
    .action(ctx.action(async (opts: { registry?: string }) => runStatus(opts, ctx.deps)));
  const w = log.command('witness').description("require witnesses' cosignatures on a registry's checkpoints");
  for (const verb of ['add', 'remove'] as const) {
    ctx
      .command(w, `${verb} <vkey>`, verb === 'add' ? "require this witness's cosignature on every checkpoint" : 'stop requiring this witness')
      .option('--registry <url>', 'the registry (default: your default registry)')
      .addHelpText('after', examples([`ctxpkg log witness ${verb} witness.example/w1+1a2b3c4d+BPm0… --registry https://ctx.example.com/api`]))
      .action(ctx.action(async (vkey: string, opts: { registry?: string }) => runWitness(verb, vkey, opts, ctx.deps)));
  }
}

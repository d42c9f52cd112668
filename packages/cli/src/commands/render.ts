/**
 * `ctxpkg render [--max-bytes N | --max-tokens N] [--focus <heading|glob|words>] [--now ISO]
 *   [--format md|json] [--out file]`: compile the installed context into a budgeted pack
 * (spec/pack.md; a focus selects only what it names, §7 "Focus", and `E_NOT_FOUND` when it names
 * nothing) and write its receipt beside it: `<out>.receipt.json`, or — when the pack goes
 * to stdout — `.ctxpkg/receipts/<pack sha256>.json` (the newest `RECEIPTS_KEPT` are kept).
 */
import { lstatSync, readdirSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format/errors';
import { BYTES_PER_TOKEN, TOKEN_NOTE } from '@ctxpkg/format/pack/types';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export interface RenderOptions {
  maxBytes?: string;
  maxTokens?: string;
  focus?: string;
  now?: string;
  format?: string;
  out?: string;
}

/**
 * How many receipts of packs written to stdout `.ctxpkg/receipts/` keeps (the newest; npm keeps
 * its last 10 debug logs the same way): an agent that runs `ctxpkg render --focus …` again and
 * again must not fill the project (new-user trial 3, finding 10: one receipt of a full 50k-node
 * render is ~5 MB). spec/pack.md §10.
 */
export const RECEIPTS_KEPT = 20;

/** A receipt of a pack written to stdout: `<pack sha256 hex>.json`. */
const PACK_RECEIPT = /^[0-9a-f]{64}\.json$/;

/**
 * Delete all but the `keep` newest pack receipts in `dir` (by modification time, then name; the
 * sync receipt `sync.json` and any other file are never touched) with `remove` — under `.ctxpkg/`
 * that is `unlinkPinned` (fsutil.ts: no symbolic link on the way is followed). Best effort: a file
 * another process removed first, or one that cannot be read or removed, is skipped.
 */
export function pruneReceipts(dir: string, keep: number, remove: (path: string) => void): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => PACK_RECEIPT.test(n));
  } catch {
    return;
  }
  if (names.length <= keep) return;
  const aged: Array<{ name: string; ms: number }> = [];
  for (const name of names) {
    try {
      const st = lstatSync(join(dir, name));
      if (st.isFile()) aged.push({ name, ms: st.mtimeMs });
    } catch {
      /* gone meanwhile */
    }
  }
  aged.sort((a, b) => b.ms - a.ms || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { name } of aged.slice(keep)) {
    try {
      remove(join(dir, name));
    } catch {
      /* gone meanwhile */
    }
  }
}

/** Parse a decimal flag value strictly (no signs, exponents or spaces). Throws `E_USAGE`. */
export function parseCount(flag: string, value: string): number {
  if (!/^[0-9]{1,12}$/.test(value)) throw new CtxpkgError('E_USAGE', `${flag} must be a positive integer (got ${JSON.stringify(value)})`);
  return Number(value);
}

/** Compile and write the pack and its receipt. */
export async function runRender(opts: RenderOptions, deps: CliDeps): Promise<CommandResult> {
  // The compiler's own modules, not the pack index (search, answers, …): a plain render loads
  // only what it runs (issue 16 item 3; test/startup-graph.test.ts).
  const { compilePack } = await import('@ctxpkg/format/pack/compile');
  const { bytesForTokens, checkByteBudget, estimateTokens } = await import('@ctxpkg/format/pack/budget');
  const { receiptText } = await import('@ctxpkg/format/pack/receipt');
  const { loadProjectContext } = await import('../targets/context.js');
  const { unlinkPinned, writeFileAtomic } = await import('../fsutil.js');
  if (opts.maxBytes !== undefined && opts.maxTokens !== undefined) {
    throw new CtxpkgError('E_USAGE', '--max-bytes and --max-tokens are mutually exclusive');
  }
  const format = opts.format ?? 'md';
  if (format !== 'md' && format !== 'json') throw new CtxpkgError('E_USAGE', `--format must be md or json (got ${JSON.stringify(format)})`);
  const project = loadProjectContext(deps, { requireGraph: true, evidence: 'record' });
  const maxBytes =
    opts.maxTokens !== undefined
      ? bytesForTokens(parseCount('--max-tokens', opts.maxTokens))
      : opts.maxBytes !== undefined
        ? checkByteBudget(parseCount('--max-bytes', opts.maxBytes))
        : project.config.pack.max_bytes;
  const { readPinTexts } = await import('../targets/pins-record.js');
  let pack: ReturnType<typeof compilePack>;
  try {
    pack = compilePack({
      graph: project.graph,
      policy: project.config.pack,
      maxBytes,
      now: opts.now ?? deps.clock().toISOString(),
      format,
      ...(opts.focus !== undefined ? { focus: opts.focus } : {}),
      read: project.read,
      builtHere: project.builtHere,
      // Every run writes a receipt (beside --out, or under .ctxpkg/receipts), so the pack may point to it.
      receipt: true,
      pinTexts: readPinTexts(project.root),
      trusted: project.trusted,
    });
  } catch (err) {
    throw budgetInFlagUnits(err, opts, maxBytes);
  }
  const receipt = receiptText(pack.receipt);
  const counts = pack.receipt.counts;
  const summary = {
    bytes: pack.bytes,
    max_bytes: maxBytes,
    tokens_estimate: estimateTokens(pack.bytes),
    token_note: TOKEN_NOTE,
    pack_sha256: pack.sha256,
    delivered: counts.delivered,
    suppressed: counts.suppressed,
    flagged: counts.flagged,
    by_reason: counts.by_reason,
    pins_broken: pack.brokenPins.map(({ pin, replacement, successors }) => ({ pin, replacement, successors: successors.slice(0, 5) })),
  };
  // A broken pin does not stop the pack (the rest is delivered), and never goes unnoticed.
  const warnings = pack.brokenPins.map((b) => b.message);
  if (opts.out !== undefined) {
    const out = isAbsolute(opts.out) ? opts.out : resolve(deps.cwd, opts.out);
    const receiptPath = `${out}.receipt.json`;
    writeFileAtomic(out, pack.text);
    writeFileAtomic(receiptPath, receipt);
    const omitted = Object.entries(counts.by_reason).filter(([, n]) => n > 0).map(([r, n]) => `${r} ${n}`);
    return {
      text: [
        `wrote ${relative(deps.cwd, out) || out}: ${pack.bytes} of ${maxBytes} bytes (~${summary.tokens_estimate} tokens, estimate), ${counts.delivered} delivered, ${counts.suppressed} omitted${omitted.length ? ` (${omitted.join(', ')})` : ''}`,
        `receipt: ${relative(deps.cwd, receiptPath) || receiptPath}`,
      ],
      json: { ...summary, out, receipt: receiptPath },
      warnings,
    };
  }
  const receiptPath = join(project.root, '.ctxpkg', 'receipts', `${pack.sha256.slice('sha256:'.length)}.json`);
  writeFileAtomic(receiptPath, receipt);
  pruneReceipts(dirname(receiptPath), RECEIPTS_KEPT, unlinkPinned);
  return {
    text: pack.text.endsWith('\n') ? pack.text.slice(0, -1).split('\n') : pack.text.split('\n'),
    json: { ...summary, receipt: receiptPath, pack: pack.text },
    warnings,
    raw: true,
  };
}

/**
 * An `E_BUDGET` from the compiler names the smallest budget that works in bytes; under
 * `--max-tokens` (4 bytes per token, spec/pack.md §4) say it in tokens too. Other errors pass.
 */
function budgetInFlagUnits(err: unknown, opts: RenderOptions, maxBytes: number): unknown {
  if (!isCtxpkgError(err) || err.code !== 'E_BUDGET' || opts.maxTokens === undefined) return err;
  const need = Number(err.details?.required_bytes);
  if (!Number.isSafeInteger(need)) return err;
  const tokens = Math.ceil(need / BYTES_PER_TOKEN);
  return new CtxpkgError('E_BUDGET', `${err.message} (--max-tokens ${opts.maxTokens} = ${maxBytes} bytes; the smallest that works is --max-tokens ${tokens})`, {
    hint: `use --max-tokens ${tokens} or more (or --max-bytes ${need})`,
    details: { ...err.details, required_tokens: tokens },
  });
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'render', 'compile installed context into a budgeted pack with a receipt')
    .option('--max-bytes <n>', 'exact budget over the rendered UTF-8 output (default: context.max_bytes, 32768)')
    .option('--max-tokens <n>', 'budget in tokens, converted at 4 bytes per token (an estimate)')
    .option('--focus <heading|glob|words>', 'only what it names: a section by heading, the rules scoped to a path, or the items matching words (none: exit 4)')
    .option('--now <iso>', 'the time to compile for (RFC 3339; default: now); drives expiry')
    .option('--format <md|json>', 'output format', 'md')
    .option('--out <file>', `write the pack to a file (receipt: <file>.receipt.json) instead of stdout (receipt: .ctxpkg/receipts/<sha256>.json, the newest ${RECEIPTS_KEPT} kept)`)
    .addHelpText(
      'after',
      examples(['ctxpkg render --max-tokens 8000 --out context.md', 'ctxpkg render --focus "src/api/**" --format json', 'ctxpkg render --focus "Text wrapping"            # one section, by its heading', 'ctxpkg render --focus "database migrations"']),
    )
    .action(ctx.action(async (opts: RenderOptions) => runRender(opts, ctx.deps)));
}

/**
 * The one place where command results and errors are printed (ARCHITECTURE.md "packages/cli").
 * Commands return a `CommandResult`; `--json` prints `result.json`, otherwise `result.text`.
 */
import { CtxpkgError, exitCodeFor, isCtxpkgError } from '@ctxpkg/format';
import type { CliDeps, OutputStream } from './deps.js';

/** What a command hands back to be printed. */
export interface CommandResult {
  /** Human-readable lines for stdout (without trailing newline each). */
  text: string[];
  /** The machine-readable form printed with `--json`. */
  json: unknown;
  /** Process exit code; 0 when omitted. */
  exitCode?: number;
  /** Extra lines for stderr (warnings), printed in both modes unless `--json` and quiet. */
  warnings?: string[];
}

/** Global flags every command understands. */
export interface GlobalFlags {
  json?: boolean;
  debug?: boolean;
}

/** True when colour is allowed on this stream (TTY and `NO_COLOR` unset or empty). */
export function colorEnabled(stream: OutputStream, env: CliDeps['env']): boolean {
  return Boolean(stream.isTTY) && !(env.NO_COLOR !== undefined && env.NO_COLOR !== '');
}

/** Print a result; returns the exit code. */
export function emitResult(result: CommandResult, flags: GlobalFlags, deps: CliDeps): number {
  for (const w of result.warnings ?? []) deps.stderr.write(`warning: ${w}\n`);
  if (flags.json) {
    deps.stdout.write(JSON.stringify(result.json, null, 2) + '\n');
  } else if (result.text.length > 0) {
    deps.stdout.write(result.text.join('\n') + '\n');
  }
  return result.exitCode ?? 0;
}

/**
 * Print an error as `error E_CODE: message` (+ hint) or as JSON `{ error: { code, message, … } }`.
 * Unexpected (non-Ctxpkg) errors are bugs: a short message, and the stack only with `--debug`.
 * Returns the exit code from the one mapping table (`exitCodeFor`).
 */
export function emitError(err: unknown, flags: GlobalFlags, deps: CliDeps): number {
  const e: CtxpkgError = isCtxpkgError(err)
    ? err
    : new CtxpkgError('E_INTERNAL', `unexpected error: ${err instanceof Error ? err.message : String(err)}`, {
        hint: flags.debug ? undefined : 'this is a bug in ctxpkg; re-run with --debug for a stack trace',
        cause: err,
      });
  if (flags.json) {
    deps.stdout.write(JSON.stringify({ error: e.toJSON() }, null, 2) + '\n');
  } else {
    deps.stderr.write(`error ${e.code}: ${e.message}\n`);
    if (e.hint) deps.stderr.write(`hint: ${e.hint}\n`);
  }
  if (flags.debug) {
    const stackOf = isCtxpkgError(err) ? err : (err as Error);
    if (stackOf && (stackOf as Error).stack) deps.stderr.write(String((stackOf as Error).stack) + '\n');
  }
  return exitCodeFor(e.code);
}

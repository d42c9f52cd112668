/**
 * The one place where command results and errors are printed (ARCHITECTURE.md "packages/cli").
 * Commands return a `CommandResult`; `--json` prints `result.json`, otherwise `result.text`.
 */
import { CtxpkgError, exitCodeFor, isCtxpkgError } from '@ctxpkg/format/errors';
import type { CommandResult, GlobalFlags } from './command.js';
import { readFileSync } from 'node:fs';
import type { CliDeps, OutputStream } from './deps.js';
import { userConfigPath } from './paths.js';

/** C0/C1 controls (not tab or line feed), DEL, and bidi embedding/override/isolate characters. */
const UNSAFE_FOR_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Report text as the terminal should show it: every control character other than tab and line
 * feed, and every bidi control, becomes a visible `\u{XXXX}` escape. Ids, names and messages
 * come from packages and registries; a node id holding `ESC ]0;…` or U+202E must not retitle,
 * recolour or visually reorder the user's terminal (H7). JSON output needs no such step
 * (`JSON.stringify` escapes controls; bidi characters are harmless inside JSON strings shown as data).
 */
export function terminalSafe(line: string): string {
  return line.replace(UNSAFE_FOR_TERMINAL, (c) => `\\u{${c.charCodeAt(0).toString(16).padStart(4, '0')}}`);
}

/** What ends or splits a table row: line breaks (incl. NEL and the Unicode separators) and tabs. */
const ROW_BREAKING = /[\t\n\r\u000b\u000c\u0085\u2028\u2029]/g;

/**
 * One cell of a table row (`token list`, `events`, `namespace list`, `outdated`): tabs and line
 * breaks become visible `\u{XXXX}` escapes, as `terminalSafe` writes controls, so a label or
 * owner from a registry (a hostile one, or one that stored it before labels were checked) cannot
 * start a forged row or shift the columns. A non-string (a hostile answer) is printed as its
 * String() form rather than crashing the command. Characters in, characters out.
 */
export function tableCell(text: string): string {
  return String(text).replace(ROW_BREAKING, (c) => `\\u{${c.charCodeAt(0).toString(16).padStart(4, '0')}}`);
}

/** True when colour is allowed on this stream (TTY and `NO_COLOR` unset or empty). */
export function colorEnabled(stream: OutputStream, env: CliDeps['env']): boolean {
  return Boolean(stream.isTTY) && !(env.NO_COLOR !== undefined && env.NO_COLOR !== '');
}

/** Print a result; returns the exit code. */
export function emitResult(result: CommandResult, flags: GlobalFlags, deps: CliDeps): number {
  for (const w of result.warnings ?? []) deps.stderr.write(`warning: ${terminalSafe(w)}\n`);
  if (flags.json) {
    deps.stdout.write(JSON.stringify(result.json, null, 2) + '\n');
  } else if (result.text.length > 0) {
    const text = result.text.join('\n');
    deps.stdout.write((result.raw ? text : terminalSafe(text)) + '\n');
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
  const redact = tokenRedactor(deps);
  if (flags.json) {
    deps.stdout.write(redact(JSON.stringify({ error: e.toJSON() }, null, 2)) + '\n');
  } else {
    deps.stderr.write(`error ${e.code}: ${terminalSafe(redact(e.message))}\n`);
    if (e.hint) deps.stderr.write(`hint: ${terminalSafe(redact(e.hint))}\n`);
  }
  if (flags.debug) {
    const stackOf = isCtxpkgError(err) ? err : (err as Error);
    if (stackOf && (stackOf as Error).stack) deps.stderr.write(terminalSafe(redact(String((stackOf as Error).stack))) + '\n');
  }
  return exitCodeFor(e.code);
}

/** Registry tokens of our shape (spec/registry.md §9), wherever they appear. */
const TOKEN_SHAPE = /ctx[proa]_[A-Za-z0-9_-]{20,}/g;

/**
 * The redaction of the error boundary (issue 11 item 8): every token this process knows
 * (`CTXPKG_TOKEN`, the tokens saved in the user config) and every run of 8+ printable characters
 * of one, plus anything shaped like a registry token, becomes `[REDACTED:token]`. An error must
 * never print a token, whatever code produced its message.
 */
export function tokenRedactor(deps: Pick<CliDeps, 'env' | 'homeDir'>): (text: string) => string {
  const known = new Set<string>();
  const add = (t: string | undefined): void => {
    if (!t) return;
    for (const piece of [t, t.trim(), ...t.split(/[^\x21-\x7e]+/)]) if (piece.length >= 8) known.add(piece);
  };
  add(deps.env.CTXPKG_TOKEN);
  try {
    // Plain JSON.parse, not config.ts: the error path of `--help` must stay light (startup-graph.test.ts).
    const o = JSON.parse(readFileSync(userConfigPath(deps), 'utf8')) as { tokens?: unknown; scoped_tokens?: unknown };
    if (o && typeof o.tokens === 'object' && o.tokens !== null) for (const t of Object.values(o.tokens)) if (typeof t === 'string') add(t);
    if (o && typeof o.scoped_tokens === 'object' && o.scoped_tokens !== null) {
      for (const byScope of Object.values(o.scoped_tokens)) {
        if (typeof byScope === 'object' && byScope !== null) for (const t of Object.values(byScope)) if (typeof t === 'string') add(t);
      }
    }
  } catch {
    /* no or unreadable config: it holds no token we could print */
  }
  const pieces = [...known].sort((a, b) => b.length - a.length);
  return (text: string): string => {
    let out = text;
    for (const p of pieces) if (out.includes(p)) out = out.split(p).join('[REDACTED:token]');
    // JSON escapes control characters: redact the escaped forms of tokens too.
    for (const p of pieces) {
      const j = JSON.stringify(p).slice(1, -1);
      if (j !== p && out.includes(j)) out = out.split(j).join('[REDACTED:token]');
    }
    return out.replace(TOKEN_SHAPE, '[REDACTED:token]');
  };
}

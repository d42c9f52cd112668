/**
 * What a command module depends on to exist (ARCHITECTURE.md "packages/cli"): the context its
 * `register(program, ctx)` receives, the result its action returns, the global flags, and the
 * examples footer of its `--help`. Commands import this module, never `program.ts`, so the
 * arrows point one way: program.ts → commands/* → command.ts. Types and one string helper only:
 * loading it costs nothing (`ctxpkg <cmd> --help` stays near `--version`, bench/startup).
 */
import type { Command } from 'commander';
import type { CliDeps } from './deps.js';

/** What a command hands back to be printed (output.ts prints it, in one place). */
export interface CommandResult {
  /** Human-readable lines for stdout (without trailing newline each). */
  text: string[];
  /** The machine-readable form printed with `--json`. */
  json: unknown;
  /** Process exit code; 0 when omitted. */
  exitCode?: number;
  /** Extra lines for stderr (warnings), printed in both modes unless `--json` and quiet. */
  warnings?: string[];
  /**
   * `text` is a document printed byte for byte (a pack on stdout: its receipt hashes those
   * bytes), not report lines: `terminalSafe` is not applied to it.
   */
  raw?: boolean;
}

/** Global flags every command understands. */
export interface GlobalFlags {
  json?: boolean;
  debug?: boolean;
}

/** Handed to each command registrar (`register(program, ctx)` in `commands/<name>.ts`). */
export interface CommandContext {
  deps: CliDeps;
  /**
   * Create a subcommand of `parent` with the options every command has (`--json`, `--debug`).
   * Use `.action(ctx.action(async (…args) => result))` on it.
   */
  command(parent: Command, nameAndArgs: string, description: string): Command;
  /**
   * Wrap an async command body: it returns a `CommandResult` (printed in one place) or throws
   * (a `CtxpkgError`, printed as `error E_CODE: message`). The exit code is recorded.
   */
  action<A extends unknown[]>(fn: (...args: A) => Promise<CommandResult>): (...args: A) => Promise<void>;
}

/** Help text footer with examples (every command's `--help` shows some; help-examples.test.ts). */
export function examples(lines: string[]): string {
  return '\nExamples:\n' + lines.map((l) => `  $ ${l}`).join('\n') + '\n';
}

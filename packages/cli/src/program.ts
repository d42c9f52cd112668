/**
 * Builds the `ctxpkg` commander program from injected dependencies (ARCHITECTURE.md
 * "packages/cli"). `runCli(argv, deps)` is what `bin.ts` and the in-process tests call.
 */
import { Command, CommanderError } from 'commander';
import { CtxpkgError } from '@ctxpkg/format';
import type { CliDeps } from './deps.js';
import { emitError, emitResult, type CommandResult, type GlobalFlags } from './output.js';
import { registerCommands } from './commands/index.js';
import { CLI_VERSION } from './version.js';

/** Handed to each command registrar. */
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

/** Extract the common flags from commander's last action argument (the Command). */
function flagsOf(args: unknown[]): GlobalFlags {
  const cmd = args[args.length - 1];
  if (cmd instanceof Command) {
    const o = cmd.optsWithGlobals() as GlobalFlags;
    return { json: Boolean(o.json), debug: Boolean(o.debug) };
  }
  return {};
}

/**
 * Build the program. `state.exitCode` receives the exit code of the command that ran.
 */
export function createProgram(deps: CliDeps, state: { exitCode: number } = { exitCode: 0 }): Command {
  const program = new Command();
  program
    .name('ctxpkg')
    .description('Create, publish and install signed context packages (.ctxpkg) for AI agents')
    .version(CLI_VERSION, '-V, --version', 'print the ctxpkg version')
    // Program options only before the command: `ctxpkg create --version 2.0.0` is create's option.
    .enablePositionalOptions()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => deps.stdout.write(s),
      writeErr: (s) => deps.stderr.write(s),
    })
    .exitOverride();

  const ctx: CommandContext = {
    deps,
    command(parent, nameAndArgs, description) {
      const sub = parent
        .command(nameAndArgs)
        .description(description)
        .option('--json', 'print machine-readable JSON on stdout')
        .option('--debug', 'print stack traces for unexpected errors')
        .configureOutput({
          writeOut: (s) => deps.stdout.write(s),
          writeErr: (s) => deps.stderr.write(s),
        })
        .showHelpAfterError('(run with --help for usage)')
        .exitOverride();
      return sub;
    },
    action(fn) {
      return async (...args) => {
        const flags = flagsOf(args);
        try {
          const result = await fn(...args);
          state.exitCode = emitResult(result, flags, deps);
        } catch (err) {
          state.exitCode = emitError(err, flags, deps);
        }
      };
    },
  };
  registerCommands(program, ctx);
  return program;
}

/**
 * Run the CLI with `argv` (without the `node` and script entries) and return the exit code.
 * Usage errors (unknown option, missing argument) exit 2; `--help`/`--version` exit 0.
 */
export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  const state = { exitCode: 0 };
  const program = createProgram(deps, state);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return state.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help' ||
        err.exitCode === 0
      ) {
        return 0;
      }
      // commander already printed its message; usage errors map to exit 2.
      return 2;
    }
    return emitError(err instanceof Error ? err : new CtxpkgError('E_INTERNAL', String(err)), {}, deps);
  }
}

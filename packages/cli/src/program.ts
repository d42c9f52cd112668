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
    // `ctxpkg --json install` works like `ctxpkg install --json` (flagsOf reads both levels).
    .option('--json', 'print machine-readable JSON on stdout (also accepted after the command)')
    .option('--debug', 'print stack traces for unexpected errors (also accepted after the command)')
    // Program options only before the command: `ctxpkg create --version 2.0.0` is create's option.
    .enablePositionalOptions()
    .configureOutput({
      writeOut: (s) => deps.stdout.write(s),
      writeErr: (s) => deps.stderr.write(s),
      // Usage errors are printed by `runCli` through the one error printer (E_USAGE, exit 2).
      outputError: () => undefined,
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
          outputError: () => undefined,
        })
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

/** The command path named by `argv` (`registry namespace list`), for usage hints. */
function commandPath(program: Command, argv: string[]): string[] {
  const path: string[] = [];
  let cur: Command = program;
  for (const a of argv) {
    if (a.startsWith('-')) continue;
    const next = cur.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (!next) break;
    path.push(next.name());
    cur = next;
  }
  return path;
}

/**
 * A commander usage error as a `CtxpkgError` (`E_USAGE`, exit 2): commander's text without its
 * `error: ` prefix, and a hint naming the `--help` of the command that was meant.
 */
export function usageError(err: CommanderError, program: Command, argv: string[]): CtxpkgError {
  const message = err.message.replace(/^error:\s*/i, '');
  const path = commandPath(program, argv);
  return new CtxpkgError('E_USAGE', message, {
    hint: `run \`ctxpkg ${path.length ? path.join(' ') + ' ' : ''}--help\` for usage`,
    details: { commander_code: err.code },
  });
}

/**
 * Run the CLI with `argv` (without the `node` and script entries) and return the exit code.
 * `--json`/`--debug` are accepted before the command too (`ctxpkg --json ls`). Usage errors
 * (unknown command or option, missing argument) are `E_USAGE` printed by the one error printer
 * — as JSON when `--json` appears anywhere in `argv` — and exit 2; `--help`/`--version` exit 0.
 */
export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  const state = { exitCode: 0 };
  const program = createProgram(deps, state);
  const end = argv.indexOf('--');
  const flagArgs = end < 0 ? argv : argv.slice(0, end);
  const flags: GlobalFlags = { json: flagArgs.includes('--json'), debug: flagArgs.includes('--debug') };
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
      return emitError(usageError(err, program, argv), flags, deps);
    }
    return emitError(err instanceof Error ? err : new CtxpkgError('E_INTERNAL', String(err)), flags, deps);
  }
}

/**
 * Builds the `ctxpkg` commander program from injected dependencies (ARCHITECTURE.md
 * "packages/cli"). `runCli(argv, deps)` is what `bin.ts` and the in-process tests call.
 *
 * The command table (commands/index.ts) is lazy: `runCli` loads only the module of the command
 * named in argv; every other command is a listing-only stub. `ctxpkg --help` loads no command
 * module, `ctxpkg <cmd> …` loads one (bench/startup measures both against `--version`).
 */
import { Command, CommanderError } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CommandContext, GlobalFlags } from './command.js';
import type { CliDeps } from './deps.js';
import { emitError, emitResult } from './output.js';
import { COMMANDS, commandEntry, type CommandEntry } from './commands/index.js';
import { CLI_VERSION } from './version.js';

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
 * The table entries whose modules a run of `argv` needs: the command named by the first word
 * that is not an option (program options take no values), or the one after `help`. Empty for
 * `ctxpkg`, `ctxpkg --help`, `ctxpkg help` and unknown words (commander reports those).
 */
export function commandsFor(argv: string[]): CommandEntry[] {
  const words: string[] = [];
  for (const a of argv) {
    if (a === '--') break;
    if (!a.startsWith('-')) words.push(a);
    if (words.length === 2) break;
  }
  const word = words[0] === 'help' ? words[1] : words[0];
  const entry = word === undefined ? undefined : commandEntry(word);
  return entry ? [entry] : [];
}

/**
 * Build the program. `state.exitCode` receives the exit code of the command that ran.
 * `load` names the table entries whose modules register real commands (default: all of them);
 * the rest are stubs that only list themselves in `--help`.
 */
export async function createProgram(
  deps: CliDeps,
  state: { exitCode: number } = { exitCode: 0 },
  load: readonly CommandEntry[] = COMMANDS,
): Promise<Command> {
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
  // One module may register several commands (yank.js: yank and unyank); load each once.
  const loaders = new Set(load.map((e) => e.load));
  const modules = new Map(await Promise.all([...loaders].map(async (l) => [l, await l()] as const)));
  const registered = new Set<CommandEntry['load']>();
  for (const entry of COMMANDS) {
    const mod = modules.get(entry.load);
    if (mod) {
      if (!registered.has(entry.load)) mod.register(program, ctx);
      registered.add(entry.load);
    } else {
      const stub = entry.group ? program.command(entry.usage).description(entry.description) : ctx.command(program, entry.usage, entry.description);
      for (const a of entry.aliases ?? []) stub.alias(a);
    }
  }
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
 * The long options of the command at `path` and the program's own, for "did you mean" (hidden
 * ones are left out).
 */
function longOptions(program: Command, path: readonly string[]): string[] {
  let cur: Command | undefined = program;
  const out: string[] = [];
  const add = (c: Command) => {
    for (const o of c.options) if (o.long && !o.hidden) out.push(o.long);
  };
  add(program);
  for (const name of path) {
    cur = cur?.commands.find((c) => c.name() === name);
    if (cur) add(cur);
  }
  return out;
}

/**
 * The options to suggest for the unknown `flag` (`--frozen`): those it begins (at least three
 * characters after `--`: `--frozen` → `--frozen-lockfile`), else those within `closest`'s edit
 * distance (suggest.ts, cargo's rule). At most three, in the command's order / closest first.
 */
export function optionSuggestions(flag: string, options: readonly string[], closest: (word: string, candidates: Iterable<string>) => string[]): string[] {
  if (!flag.startsWith('--')) return [];
  const prefixed = flag.length >= 5 ? [...new Set(options.filter((o) => o !== flag && o.startsWith(flag)))] : [];
  return (prefixed.length > 0 ? prefixed : closest(flag, options)).slice(0, 3);
}

/**
 * A commander usage error as a `CtxpkgError` (`E_USAGE`, exit 2): commander's text without its
 * `error: ` prefix, and a hint naming the `--help` of the command that was meant. For an unknown
 * option, "did you mean" names the command's near options (`optionSuggestions`, given
 * suggest.ts's `closest`; commander's own suggestion, which misses prefixes, is replaced).
 */
export function usageError(err: CommanderError, program: Command, argv: string[], closest?: (word: string, candidates: Iterable<string>) => string[]): CtxpkgError {
  let message = err.message.replace(/^error:\s*/i, '');
  const path = commandPath(program, argv);
  let suggestions: string[] = [];
  const unknown = err.code === 'commander.unknownOption' ? /^unknown option '([^']*)'/.exec(message) : null;
  if (unknown && closest) {
    suggestions = optionSuggestions(unknown[1] as string, longOptions(program, path), closest);
    message = message.replace(/\n\(Did you mean [^)]*\)$/, '') + (suggestions.length > 0 ? `; did you mean ${suggestions.join(' or ')}?` : '');
  }
  return new CtxpkgError('E_USAGE', message, {
    hint: `run \`ctxpkg ${path.length ? path.join(' ') + ' ' : ''}--help\` for usage`,
    details: { commander_code: err.code, ...(suggestions.length > 0 ? { suggestions } : {}) },
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
  const program = await createProgram(deps, state, commandsFor(argv));
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
      // suggest.ts is loaded only on this error path (the start-up graph stays as it was).
      const { closest } = err.code === 'commander.unknownOption' ? await import('./suggest.js') : { closest: undefined };
      return emitError(usageError(err, program, argv, closest), flags, deps);
    }
    return emitError(err instanceof Error ? err : new CtxpkgError('E_INTERNAL', String(err)), flags, deps);
  }
}

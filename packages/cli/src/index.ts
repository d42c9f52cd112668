/** Programmatic entry of the ctxpkg CLI (used by tests and embedding). */
export { createProgram, runCli } from './program.js';
export type { CommandContext, CommandResult, GlobalFlags } from './command.js';
export type { CliDeps, OutputStream } from './deps.js';
export { CLI_VERSION } from './version.js';

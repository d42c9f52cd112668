/** Programmatic entry of the ctxpkg CLI (used by tests and embedding). */
export { createProgram, runCli, type CommandContext } from './program.js';
export type { CliDeps, OutputStream } from './deps.js';
export type { CommandResult, GlobalFlags } from './output.js';
export { CLI_VERSION } from './version.js';

/**
 * The only file that touches the real process: builds real dependencies and runs the CLI.
 */
import { homedir } from 'node:os';
import { runCli } from './program.js';
import type { CliDeps } from './deps.js';

const deps: CliDeps = {
  fetch: globalThis.fetch.bind(globalThis),
  env: process.env,
  cwd: process.cwd(),
  homeDir: process.env.CTXPKG_HOME_DIR ?? homedir(),
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  clock: () => new Date(),
};

runCli(process.argv.slice(2), deps).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`error E_INTERNAL: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 70;
  },
);

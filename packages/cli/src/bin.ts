/**
 * The only file that touches the real process: builds real dependencies and runs the CLI.
 * `ctxpkg --version` is answered before the command modules load (they pull in the format core),
 * so it stays fast; everything else goes through `runCli`.
 */
import { homedir } from 'node:os';
import { CLI_VERSION } from './version.js';
import type { CliDeps } from './deps.js';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${CLI_VERSION}\n`);
} else {
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
  import('./program.js')
    .then(({ runCli }) => runCli(argv, deps))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (err: unknown) => {
        process.stderr.write(`error E_INTERNAL: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exitCode = 70;
      },
    );
}

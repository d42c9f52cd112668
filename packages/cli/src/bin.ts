/**
 * The only file that touches the real process: builds real dependencies and runs the CLI.
 * `ctxpkg --version` is answered before the command modules load (they pull in the format core),
 * so it stays fast; everything else goes through `runCli`.
 */
import { homedir } from 'node:os';
import { CLI_VERSION } from './version.js';
import type { CliDeps } from './deps.js';

/**
 * A reader that closed its end of our stdout or stderr (`ctxpkg ls --nodes | head -1`) is not an
 * error of the command: like other CLIs we stop writing to that stream and finish quietly (the
 * command still completes and exits with its own code; nothing it commits is cut short). Without
 * a listener Node turns the EPIPE into an uncaught exception with a stack trace. Any other stream
 * error is still thrown.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}
quietOnClosedPipe(process.stdout);
quietOnClosedPipe(process.stderr);

const argv = process.argv.slice(2);
const noopCandidate =
  (argv[0] === 'install' || argv[0] === 'i') && (argv.length === 1 || (argv.length === 2 && argv[1] === '--frozen-lockfile'));
let noop: string[] | undefined;
if (noopCandidate) {
  // `ctxpkg install` with nothing changed since the last install: answered without loading the
  // format core (install/noop.ts checks every input and re-hashes the store).
  const { tryNoopInstall } = await import('./install/noop.js');
  noop = tryNoopInstall({ cwd: process.cwd(), env: process.env, homeDir: process.env.CTXPKG_HOME_DIR ?? homedir() });
}
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${CLI_VERSION}\n`);
} else if (noop) {
  process.stdout.write(noop.join('\n') + '\n');
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

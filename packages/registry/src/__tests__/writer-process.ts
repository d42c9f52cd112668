/**
 * Test support: start `writer-child.ts` (another process changing a registry data directory) and
 * talk to it one command at a time. `send(command)` resolves once the child answers `ok` and
 * rejects on `error <message>`; lines that arrive while nothing waits are kept in `stray`
 * (tests assert it stays empty). `stop()` closes stdin and waits for the child to exit.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface WriterChild {
  send(command: string): Promise<void>;
  readonly stray: string[];
  stop(): Promise<void>;
}

/** Spawn the writer child over `dataDir` (run from the repository root, sources via tsx). */
export function startWriterChild(dataDir: string): WriterChild {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'packages/registry/src/__tests__/writer-child.ts', dataDir], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const stray: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  let buf = '';
  child.stdout!.on('data', (d) => {
    buf += String(d);
    let nl;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiting;
      waiting = undefined;
      if (w) w(line);
      else stray.push(line);
    }
  });
  return {
    stray,
    send: (command) =>
      new Promise((resolve, reject) => {
        waiting = (line) => (line === 'ok' ? resolve() : reject(new Error(`${command}: ${line}`)));
        child.stdin!.write(`${command}\n`);
      }),
    async stop() {
      child.stdin?.end();
      if (child.exitCode === null) await new Promise((res) => child.once('exit', res));
    },
  };
}

/**
 * Another process writing to a registry data directory, as the admin CLI does while a server runs
 * (test support for index-freshness.test.ts). Reads one command per line on stdin, commits it
 * through its own store connection and answers `ok` (or `error <message>`) once committed:
 *   visibility <@ns/name> public|private
 *   yank|unyank <ns> <name> <version>
 * Usage: node --conditions=source --import tsx packages/registry/src/__tests__/writer-child.ts <dataDir>
 */
import { createInterface } from 'node:readline';
import { setPackageVisibility } from '../admin.js';
import { openSqliteStore } from '../store/sqlite.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: writer-child.ts <dataDir>');
const store = await openSqliteStore({ dataDir });
const at = '2026-01-02T03:04:05Z';

async function run(line: string): Promise<void> {
  const [cmd, ...args] = line.trim().split(/\s+/);
  if (cmd === 'visibility') await setPackageVisibility({ store }, args[0], args[1] as 'public' | 'private');
  else if (cmd === 'yank' || cmd === 'unyank') await store.setYanked(args[0], args[1], args[2], cmd === 'yank', at, 'writer-child');
  else throw new Error(`unknown command ${cmd}`);
}

for await (const line of createInterface({ input: process.stdin })) {
  try {
    await run(line);
    process.stdout.write('ok\n');
  } catch (err) {
    process.stdout.write(`error ${(err as Error).message}\n`);
  }
}
await store.close();

/**
 * Another process changing a registry data directory the way an operator can while a server runs
 * (test support for index-freshness.test.ts and test/adversarial/registry-commit-probe.test.ts). One command per line on stdin;
 * answers `ok` once committed (or `error <message>`). Each admin command opens and closes its own
 * store, as the `ctxpkg registry` admin CLI does:
 *   visibility <@ns/name> public|private      (admin CLI)
 *   revoke <token>                             (admin CLI)
 *   yank|unyank <ns> <name> <version>          (own store connection)
 *   checkpoint <PASSIVE|FULL|RESTART|TRUNCATE> (raw connection: wal_checkpoint)
 *   hold-open                                  (keep one raw connection open from now on)
 * Usage: node --conditions=source --import tsx packages/registry/src/__tests__/writer-child.ts <dataDir>
 */
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { revokeToken, setPackageVisibility } from '../admin.js';
import { openSqliteStore } from '../store/sqlite.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: writer-child.ts <dataDir>');
const at = '2026-01-02T03:04:05Z';
let held: Database.Database | undefined;

function raw(): Database.Database {
  const db = new Database(join(dataDir!, 'registry.sqlite'));
  db.pragma('busy_timeout = 5000');
  return db;
}

async function run(line: string): Promise<void> {
  const [cmd, ...args] = line.trim().split(/\s+/);
  if (cmd === 'visibility') await setPackageVisibility({ dataDir: dataDir! }, args[0]!, args[1] as 'public' | 'private');
  else if (cmd === 'revoke') await revokeToken({ dataDir: dataDir! }, args[0]!);
  else if (cmd === 'yank' || cmd === 'unyank') {
    const store = await openSqliteStore({ dataDir: dataDir! });
    try {
      await store.setYanked(args[0]!, args[1]!, args[2]!, cmd === 'yank', at, 'writer-child');
    } finally {
      await store.close();
    }
  } else if (cmd === 'checkpoint') {
    const db = raw();
    try {
      db.pragma(`wal_checkpoint(${args[0]})`);
    } finally {
      db.close();
    }
  } else if (cmd === 'hold-open') {
    held = raw();
    held.prepare('SELECT count(*) FROM packages').get();
  } else throw new Error(`unknown command ${cmd}`);
}

for await (const line of createInterface({ input: process.stdin })) {
  try {
    await run(line);
    process.stdout.write('ok\n');
  } catch (err) {
    process.stdout.write(`error ${(err as Error).message}\n`);
  }
}
held?.close();

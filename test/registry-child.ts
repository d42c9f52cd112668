/**
 * A registry server process for tests that must kill it (test/registry-crash.test.ts,
 * test/registry-nodes.test.ts).
 * Usage: node --conditions=source --import tsx test/registry-child.ts <dataDir | postgres://…>
 * Prints `listening on <url>` once ready.
 */
import { isPostgresUrl, startRegistry } from '@ctxpkg/registry';

const where = process.argv[2];
if (!where) throw new Error('usage: registry-child.ts <dataDir | postgres-url>');
const reg = await startRegistry({ ...(isPostgresUrl(where) ? { db: where } : { dataDir: where }), port: 0, gcIntervalMs: 0 });
process.stdout.write(`listening on ${reg.url}\n`);
process.on('SIGTERM', () => {
  void reg.close().then(() => process.exit(0));
});

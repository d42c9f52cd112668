/**
 * A registry server process for tests that must kill it (test/registry-crash.test.ts).
 * Usage: node --conditions=source --import tsx test/registry-child.ts <dataDir>
 * Prints `listening on <url>` once ready.
 */
import { startRegistry } from '@ctxpkg/registry';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: registry-child.ts <dataDir>');
const reg = await startRegistry({ dataDir, port: 0, gcIntervalMs: 0 });
process.stdout.write(`listening on ${reg.url}\n`);
process.on('SIGTERM', () => {
  void reg.close().then(() => process.exit(0));
});

/**
 * Server process for the registry bench (bench/registry/run.ts), one per mode:
 *   registry <dataDir | postgres-url> <logFile>
 *                                 — the real registry (startRegistry), request logs to a file
 *   floor <indexFile> <blobFile> <headersFile>
 *                                 — a bare node:http server answering the same bytes (the floor):
 *                                   the same bodies with the same response headers the registry
 *                                   sent (headersFile: `{ index: {…}, download: {…} }`)
 * Prints `listening on <url>` when ready; exits on SIGTERM.
 */
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bufferedLineLogger, isPostgresUrl, startRegistry } from '@ctxpkg/registry';

const [mode, a, b, c] = process.argv.slice(2);

if (mode === 'registry') {
  const logs = createWriteStream(b, { flags: 'a' });
  // The same batching logger `ctxpkg registry serve` uses, writing to a file.
  const logger = bufferedLineLogger((chunk) => logs.write(chunk));
  const reg = await startRegistry({ ...(isPostgresUrl(a) ? { db: a } : { dataDir: a }), port: 0, log: logger.log });
  process.stdout.write(`listening on ${reg.url}\n`);
  process.on('SIGTERM', () =>
    void reg.close().then(() => {
      logger.flush();
      logs.end(() => process.exit(0));
    }),
  );
} else if (mode === 'floor') {
  const index = await readFile(a);
  const blob = await readFile(b);
  const headers = JSON.parse(await readFile(c, 'utf8')) as { index: Record<string, string>; download: Record<string, string> };
  const server = createServer((req, res) => {
    if (req.url === '/index.json') {
      res.writeHead(200, headers.index);
      res.end(index);
    } else if (req.url === '/download') {
      res.writeHead(200, headers.download);
      res.end(blob);
    } else {
      res.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else {
  throw new Error('usage: server.ts registry <dataDir> <logFile> | floor <indexFile> <blobFile> <headersFile>');
}

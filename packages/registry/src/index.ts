/**
 * @ctxpkg/registry — the Hono registry server (spec/registry.md).
 *
 * - `createApp({ store, clock, log, limits, basePath, corsOrigins, publicUrl })` builds the app;
 * - `startRegistry({ dataDir, host, port, … })` serves it (`{ url, close }`), `serveRegistry` runs
 *   it in the foreground until SIGTERM/SIGINT;
 * - `openSqliteStore({ dataDir })` opens the embedded store behind the `RegistryStore` interface;
 * - the admin functions (`createNamespace`, `createToken`, `revokeToken`, `addSignerKey`, …) work
 *   on a data directory, also while a server runs.
 */
export { createApp, type RegistryApp } from './app.js';
export { BACKUP_FORMAT, backupRegistry, restoreRegistry, verifyRegistry, type BackupSummary, type VerifyProblem } from './backup.js';
export {
  addSignerKey,
  collectGarbage,
  createNamespace,
  createToken,
  listEvents,
  listNamespaces,
  listSignerKeys,
  listTokens,
  logKey,
  parseExpiry,
  revokeSignerKey,
  revokeToken,
  setPackageVisibility,
  verifyLog,
  type AdminTarget,
  type CreatedToken,
} from './admin.js';
export { hashToken, TOKEN_PATTERN, type Principal } from './auth.js';
export { buildIndex, INDEX_SCHEMA, type IndexDocument, type IndexVersionEntry } from './index-doc.js';
export { bufferedLineLogger } from './line-logger.js';
export { Metrics } from './metrics.js';
export { DEFAULT_LIMITS, type AppOptions, type LogEntry, type Logger, type RegistryLimits } from './options.js';
export { orderVersions, pickLatest, precedenceKey } from './ordering.js';
export { serveRegistry, startRegistry, type RunningRegistry, type ServeIo, type StartRegistryOptions } from './server.js';
export { openSqliteStore, SqliteStore, type SqliteStoreOptions } from './store/sqlite.js';
export { openPgStore, PgStore, type PgStoreOptions } from './store/pg.js';
export { isPostgresUrl, openStore, type StoreLocation } from './store/open.js';
export type * from './store/types.js';
export { TRUST_REPORT_SCHEMA, type TrustReport } from './trust.js';
export { verifyRegistryLog, type LogVerifyReport } from './tlog/replay.js';
export { parseWitnessFlag, type WitnessConfig } from './tlog/witnesses.js';

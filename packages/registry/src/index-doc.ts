/**
 * The per-package index document `GET /v1/packages/{ns}/{name}/index.json`
 * (spec/registry.md "Index"; FORMAT-FACTS §9).
 *
 * Shape: `{ schema: "ctxpkg-registry-package-v1", name, latest, visibility, versions }`, each
 * version `{ version, artifact_sha256, size_bytes, signer_public_key, yanked, published_at,
 * integrity_sha256, dependencies }` — the first six are the reference's, the last two are ours
 * (the reference client ignores unknown fields). `versions[0]` is `latest` (ordering.ts).
 */
import { createHash } from 'node:crypto';
import { orderVersions } from './ordering.js';
import type { DependencyRecord, VersionRecord, Visibility } from './store/types.js';
import type { IndexLog, IndexVersionLog } from './tlog/proofs.js';

export const INDEX_SCHEMA = 'ctxpkg-registry-package-v1';

export interface IndexVersionEntry {
  version: string;
  artifact_sha256: string;
  size_bytes: number;
  signer_public_key: string;
  yanked: boolean;
  published_at: string;
  integrity_sha256: string;
  dependencies: DependencyRecord[];
  /** The version's publish entry in the transparency log (spec/transparency.md §4). */
  log?: IndexVersionLog;
}

export interface IndexDocument {
  schema: typeof INDEX_SCHEMA;
  name: string;
  latest: string | null;
  visibility: Visibility;
  versions: IndexVersionEntry[];
  /** The package's checkpoint and its namespace's logged keys (spec/transparency.md §4). */
  log?: IndexLog;
}

/** One version's index entry, fields in the documented order (`log` last, when given). */
export function indexEntry(v: VersionRecord, log?: IndexVersionLog): IndexVersionEntry {
  return {
    version: v.version,
    artifact_sha256: v.artifact_sha256,
    size_bytes: v.size_bytes,
    signer_public_key: v.signer_public_key,
    yanked: v.yanked,
    published_at: v.published_at,
    integrity_sha256: v.integrity_sha256,
    dependencies: v.dependencies.map((d) => ({ name: d.name, version_req: d.version_req, optional: d.optional })),
    ...(log ? { log } : {}),
  };
}

/**
 * Build the index document for `@ns/name` from all its versions (any order) and, when the
 * registry has a log, the package's log members (`packageIndexLog`).
 */
export function buildIndex(
  fullName: string,
  visibility: Visibility,
  versions: readonly VersionRecord[],
  log?: { log: IndexLog; versions: ReadonlyMap<string, IndexVersionLog> } | null,
): IndexDocument {
  const { latest, ordered } = orderVersions(versions);
  return {
    schema: INDEX_SCHEMA,
    name: fullName,
    latest: latest ? latest.version : null,
    visibility,
    versions: ordered.map((v) => indexEntry(v, log?.versions.get(v.version))),
    ...(log ? { log: log.log } : {}),
  };
}

/** The serialised document and its strong ETag (`"sha256:<first 32 hex of the body's SHA-256>"`). */
export function renderIndex(doc: IndexDocument): { body: string; etag: string } {
  const body = JSON.stringify(doc);
  const etag = `"sha256:${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
  return { body, etag };
}

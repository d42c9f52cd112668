import { CtxpkgError } from '@ctxpkg/format';

/**
 * Row ⇄ record mapping for the SQLite store (column names follow store/schema.ts).
 */
import type {
  AuditEvent,
  CatalogEntry,
  DependencyRecord,
  NamespaceRecord,
  PackageRecord,
  SignerKeyRecord,
  TokenRecord,
  TokenScope,
  VersionRecord,
  Visibility,
} from './types.js';

export type Row = Record<string, unknown>;

const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function toNamespace(r: Row): NamespaceRecord {
  return { name: str(r.name), owner: str(r.owner), created_at: str(r.created_at) };
}

export function toToken(r: Row): TokenRecord {
  return {
    id: str(r.id),
    token_sha256: str(r.token_sha256),
    namespace: strOrNull(r.namespace),
    scope: toScope(r.scope),
    label: strOrNull(r.label),
    created_at: str(r.created_at),
    expires_at: strOrNull(r.expires_at),
    revoked_at: strOrNull(r.revoked_at),
  };
}

/** A stored scope; anything unknown reads as the least privileged, `read`. */
export function toScope(v: unknown): TokenScope {
  return v === 'publish' || v === 'owner' || v === 'admin' ? v : 'read';
}

/** An events row as an `AuditEvent` (both backends). */
export function toEvent(r: Row): AuditEvent {
  return {
    at: str(r.at),
    action: str(r.action),
    namespace: strOrNull(r.namespace),
    name: strOrNull(r.name),
    version: strOrNull(r.version),
    actor: str(r.actor),
    detail: strOrNull(r.detail),
  };
}

export function toSignerKey(r: Row): SignerKeyRecord {
  return {
    namespace: str(r.namespace),
    public_key: str(r.public_key),
    added_at: str(r.added_at),
    added_by: r.added_by === 'admin' || r.added_by === 'owner' ? r.added_by : 'first-publish',
    revoked_at: strOrNull(r.revoked_at),
  };
}

export function toVisibility(v: unknown): Visibility {
  return v === 'private' ? 'private' : 'public';
}

export function toPackage(r: Row): PackageRecord {
  return {
    id: Number(r.id),
    namespace: str(r.namespace),
    name: str(r.name),
    visibility: toVisibility(r.visibility),
    revision: Number(r.revision),
    created_at: str(r.created_at),
    updated_at: str(r.updated_at),
  };
}

/** Versions are selected joined with their package (`namespace`, `name` columns). */
export function toVersion(r: Row): VersionRecord {
  return {
    namespace: str(r.namespace),
    name: str(r.name),
    version: str(r.version),
    precedence_key: str(r.precedence_key),
    artifact_sha256: str(r.artifact_sha256),
    size_bytes: Number(r.size_bytes),
    integrity_sha256: str(r.integrity_sha256),
    signer_public_key: str(r.signer_public_key),
    description: str(r.description),
    tags: JSON.parse(str(r.tags_json)) as string[],
    dependencies: JSON.parse(str(r.dependencies_json)) as DependencyRecord[],
    yanked: Number(r.yanked) === 1,
    yanked_at: strOrNull(r.yanked_at),
    published_at: str(r.published_at),
    published_by: str(r.published_by),
    trust_report: JSON.parse(str(r.trust_report_json)) as unknown,
  };
}

export function toCatalogEntry(r: Row): CatalogEntry {
  return {
    namespace: str(r.namespace),
    name: str(r.name),
    visibility: toVisibility(r.visibility),
    description: str(r.description),
    tags: JSON.parse(str(r.tags_json)) as string[],
    latest: strOrNull(r.latest_version),
    updated_at: str(r.updated_at),
  };
}

/** Columns selected for a version, joined with packages as `p`, versions as `v`. */
export const VERSION_COLUMNS = `p.namespace AS namespace, p.name AS name, v.version, v.precedence_key,
  v.artifact_sha256, v.size_bytes, v.integrity_sha256, v.signer_public_key, v.description, v.tags_json,
  v.dependencies_json, v.yanked, v.yanked_at, v.published_at, v.published_by, v.trust_report_json`;

/**
 * The refusal of a publish that asks for a visibility the existing package does not have
 * (spec/registry.md §6: visibility is per package, decided by its first publish; an owner changes it).
 */
export function visibilityConflict(full: string, has: string, asked: string): CtxpkgError {
  return new CtxpkgError(
    'E_VISIBILITY',
    `${full} is ${has}, but this publish asks for ${asked}; a package's visibility belongs to the package (set by its first publish), and every version has it`,
    {
      hint: `publish without --${asked} (and without a manifest visibility) to keep it ${has}, or have an owner change the package first: \`ctxpkg registry visibility ${full} ${asked}\``,
      details: { visibility: has, requested: asked },
    },
  );
}

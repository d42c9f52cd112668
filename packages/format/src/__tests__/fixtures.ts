/**
 * Test fixtures for the format core (not part of the build): a package shaped like the
 * reference's golden v2 package (FORMAT-FACTS §11.2) and helpers to hand-craft bundle text,
 * including hostile variants re-signed with the test key (ADVERSARIAL conventions: seed 32×0x2a).
 */
import type { PackageContent } from '../content.js';
import { computeIntegrity } from '../integrity.js';
import { compactJsonText } from '../json/text.js';
import type { ManifestInput } from '../package-write.js';
import { signManifest } from '../signature.js';

export const SEED42 = new Uint8Array(32).fill(0x2a);
export const PUB42 = '197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61';

/** The golden package's content (FORMAT-FACTS §11.2 "v2 graph package"). */
export function goldenContent(): PackageContent {
  return {
    context_graph: {
      format: 'ctxpkg-graph-v2',
      nodes: [
        { id: 'N1', type: 'fact', content: 'JWT secrets rotate every 24h', activation: 1, category: 'security', source: 'sess-1', created_at: '2026-01-02T03:04:05Z', decay_half_life_days: 90, confidence: 0.9 },
        { id: 'N2', type: 'gotcha', content: 'token refresh races\n---\nuse a mutex', activation: 0.9, created_at: '2026-01-02T03:04:05.120Z' },
        { id: 'N3', type: 'code_function', content: 'refresh_token', activation: 1, category: 'function', file_path: 'src/auth.rs', supersedes: 'N0' },
      ],
      edges: [
        { from: 'N1', to: 'N2', type: 'has_gotcha', weight: 0.9, coactivations: 3 },
        { from: 'N2', to: 'N3', type: 'calls', weight: 1, metadata: 'x' },
      ],
    },
  };
}

/** The golden content's compact text (byte_size 690). */
export const GOLDEN_CONTENT_TEXT =
  '{"context_graph":{"format":"ctxpkg-graph-v2","nodes":[{"id":"N1","type":"fact","content":"JWT secrets rotate every 24h","activation":1.0,"category":"security","source":"sess-1","created_at":"2026-01-02T03:04:05Z","decay_half_life_days":90,"confidence":0.9},{"id":"N2","type":"gotcha","content":"token refresh races\\n---\\nuse a mutex","activation":0.9,"created_at":"2026-01-02T03:04:05.120Z"},{"id":"N3","type":"code_function","content":"refresh_token","activation":1.0,"category":"function","file_path":"src/auth.rs","supersedes":"N0"}],"edges":[{"from":"N1","to":"N2","type":"has_gotcha","weight":0.9,"coactivations":3},{"from":"N2","to":"N3","type":"calls","weight":1.0,"metadata":"x"}]}}';

/** The golden manifest as writer input. */
export function goldenManifest(over: Partial<ManifestInput> = {}): ManifestInput {
  return {
    schema_version: 2,
    conformance_level: 2,
    name: '@acme/auth-context',
    version: '2.0.0',
    description: 'auth',
    scope: '@acme',
    created_at: '2026-01-02T03:04:05Z',
    dependencies: [{ name: '@acme/base', version_req: '^1.2', optional: false }],
    provenance: { tool: 'lean-ctx', tool_version: '3.9.18' },
    ...over,
  };
}

export interface CraftOptions {
  name?: string;
  version?: string;
  /** Content member text exactly as it should appear in the file. */
  contentText?: string;
  /** Extra manifest members as raw JSON text (e.g. `"kind":"plugin"`), inserted before integrity. */
  extraManifest?: string;
  /** Replace the whole manifest head (members before integrity) with this raw text. */
  head?: string;
  /** Sign with this seed (default SEED42); `null` leaves the package unsigned. */
  seed?: Uint8Array | null;
  /** Use this raw signature text instead of signing. */
  signatureText?: string;
  /** Override the integrity values written. */
  integrity?: Partial<{ sha256: string; content_hash: string; byte_size: number }>;
  /** Raw text inserted after the content member (e.g. a duplicate member). */
  trailerMembers?: string;
}

/**
 * Hand-craft bundle text: integrity computed from the (compacted) content text, re-signed with
 * the test key. Lets tests build hostile inputs that are otherwise valid.
 */
export function craftBundle(o: CraftOptions = {}): string {
  const name = o.name ?? '@acme/auth-context';
  const version = o.version ?? '1.2.0';
  const contentText = o.contentText ?? GOLDEN_CONTENT_TEXT;
  const computed = computeIntegrity(name, version, compactJsonText(contentText));
  const integrity = { ...computed, ...o.integrity };
  const head =
    o.head ??
    `"schema_version":2,"conformance_level":2,"name":${JSON.stringify(name)},"version":${JSON.stringify(version)},"description":"auth","author":null,` +
      `"created_at":"2026-01-02T03:04:05Z","updated_at":null,"layers":[],"dependencies":[],"tags":[]`;
  let sig = '';
  if (o.signatureText !== undefined) sig = `,"signature":${o.signatureText}`;
  else if (o.seed !== null) sig = `,"signature":${JSON.stringify(signManifest({ name, version, integrity }, o.seed ?? SEED42))}`;
  const manifest =
    `{${head}${o.extraManifest ? ',' + o.extraManifest : ''},"integrity":${JSON.stringify(integrity)},` +
    `"provenance":{"tool":"lean-ctx","tool_version":"3.9.18","project_hash":null,"source_session_id":null}${sig}}`;
  return `{"manifest":${manifest},"content":${contentText}${o.trailerMembers ?? ''}}`;
}

/** UTF-8 bytes of `text`. */
export function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

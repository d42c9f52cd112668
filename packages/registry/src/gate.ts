/**
 * The publish gate: everything decided about a package's bytes before they are stored
 * (spec/registry.md "Publish gate"; FORMAT-FACTS §3, §4, §9; ADVERSARIAL HB-03, HB-21).
 *
 * 1. full verification through `readPackage(bytes, { requireSignature: true })` — structure,
 *    content hash, byte size, package hash and a strict Ed25519 signature; unsigned → `E_UNSIGNED`;
 *    then, before any check whose cost grows with the package text (globs, secret screening), the
 *    caller's signer check (`checkSigner`: the key registered for the namespace, `E_SIGNER_CHANGED`),
 *    so a leaked publish token alone cannot make the registry screen hostile text (issue 11 item 2);
 * 2. name binding: the manifest's `name` must be the URL's `@ns/name` and its `version` the URL's
 *    version, character for character (`E_NAME_MISMATCH`);
 * 3. strict SemVer of that version (`validateVersion`, HB-03);
 * 4. `visibility` absent (no declaration: the publish request or the registry's default decides),
 *    `"public"` or `"private"` — anything else is refused (`E_MANIFEST`), so a typo like
 *    `"Private"` can never publish a package publicly;
 * 5. scope globs (`type: "scope"` nodes) within the bounds every client matches them under
 *    (`scopeGlobIssues`, format pack/glob.ts) → `E_GLOB`;
 * 6. secret screening of every string of the content and of the manifest's free text
 *    (`scanSecrets`); findings → `E_SECRET` with paths and kinds, never the values.
 * Size is checked before this (body.ts); signer-key registration and immutability are checked by
 * the store inside the publish transaction.
 */
import { CtxpkgError, errorFromIssues, isCtxpkgError, parsePackageName, parseRange, readPackage, scanSecrets, scopeGlobIssues, validateVersion } from '@ctxpkg/format';
import type { PackageRef } from './params.js';
import type { DependencyRecord, Visibility } from './store/types.js';
import { collectScanTargets, searchText } from './gate-text.js';

/** What the gate learned about an accepted package. */
export interface GateResult {
  form: string;
  /** The manifest's declared visibility; null when it declares none. */
  visibility: Visibility | null;
  description: string;
  tags: string[];
  dependencies: DependencyRecord[];
  integrity_sha256: string;
  signer_public_key: string;
  search_text: string;
  /** ZIP form: the verified blobs by blob_ref (`sha256-<hex>`); empty for a JSON bundle. */
  blobs: ReadonlyMap<string, Uint8Array>;
  /** Check name → detail, in the order performed (all passed). */
  checks: Array<{ check: string; detail: string }>;
  /** What was deliberately not checked, with the reason. */
  skipped: Array<{ check: string; reason: string }>;
}

interface ManifestView {
  name?: unknown;
  version?: unknown;
  description?: unknown;
  tags?: unknown;
  dependencies?: unknown;
  visibility?: unknown;
  integrity?: { sha256?: unknown };
}

function asStringArray(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function asDependencies(v: unknown): DependencyRecord[] {
  if (!Array.isArray(v)) return [];
  return v
    .filter((d): d is Record<string, unknown> => typeof d === 'object' && d !== null)
    .map((d) => ({ name: String(d.name), version_req: String(d.version_req ?? ''), optional: d.optional === true }));
}

/**
 * Refuse dependencies no client could resolve, by the rules clients read them with: the name is a
 * valid scoped name (`parsePackageName`) and the range parses (`parseRange` in read mode, so
 * `latest`, `>>x<<` or a 300-character range are refused here, not at every install).
 * Throws `E_INVALID_NAME` or `E_INVALID_RANGE` naming `manifest.dependencies[i]`.
 */
function checkDependencies(deps: readonly DependencyRecord[]): void {
  deps.forEach((d, i) => {
    const at = `manifest.dependencies[${i}]`;
    try {
      parsePackageName(d.name);
      parseRange(d.version_req, { mode: 'read' });
    } catch (err) {
      if (!isCtxpkgError(err)) throw err;
      throw new CtxpkgError(err.code, `${at} (${JSON.stringify(d.name)} ${JSON.stringify(d.version_req)}): ${err.message}`, {
        hint: 'every client refuses this dependency; fix it with `ctxpkg create --dep @ns/name@^1.2` and publish a new build',
        details: { path: at, name: d.name, version_req: d.version_req },
      });
    }
  });
}

function visibilityOf(v: unknown): Visibility | null {
  if (v === undefined || v === null) return null;
  if (v === 'public' || v === 'private') return v;
  throw new CtxpkgError('E_MANIFEST', `manifest.visibility must be "public" or "private", found ${JSON.stringify(v)}`, {
    hint: 'omit visibility and choose at publish time (`ctxpkg publish --public`; private by default)',
  });
}

/**
 * Run the gate over the package bytes for the URL `ref` and `version`; `checkSigner` runs right
 * after the signature is verified (it throws to refuse). Returns what to store;
 * throws the first failing check's `CtxpkgError` (all 400: `E_UNSIGNED`, `E_SIGNATURE_*`,
 * `E_INTEGRITY`, `E_MANIFEST`, `E_STRUCTURE`, `E_INVALID_JSON`, `E_ARCHIVE*`, `E_NAME_MISMATCH`,
 * `E_INVALID_VERSION`, `E_SECRET`, …; `E_TOO_LARGE` 413 from the format's own cap).
 */
export async function runPublishGate(
  bytes: Uint8Array,
  ref: PackageRef,
  version: string,
  limits: { maxPackageBytes: number; searchTextChars: number },
  checkSigner?: (signer: string) => Promise<void>,
): Promise<GateResult> {
  const pkg = await readPackage(bytes, { requireSignature: true, maxBytes: limits.maxPackageBytes });
  if (!pkg.signer) throw new CtxpkgError('E_UNSIGNED', 'the package is not signed; the registry accepts signed packages only');
  if (checkSigner) await checkSigner(pkg.signer);
  const m = pkg.manifest as unknown as ManifestView;
  const checks: GateResult['checks'] = [];
  checks.push({ check: 'structure', detail: `${pkg.form === 'zip' ? 'ZIP archive' : 'JSON bundle'} parsed strictly` });
  checks.push({ check: 'content_hash', detail: 'content_hash and byte_size match the content text' });
  checks.push({ check: 'integrity_sha256', detail: 'integrity.sha256 matches name, version and content_hash' });
  checks.push({ check: 'signature', detail: `strict Ed25519 signature by ${pkg.signer}` });

  if (m.name !== ref.full) {
    throw new CtxpkgError('E_NAME_MISMATCH', `the URL publishes ${ref.full} but the manifest names ${JSON.stringify(m.name)}`, {
      details: { url: ref.full, manifest: m.name },
    });
  }
  if (m.version !== version) {
    throw new CtxpkgError('E_NAME_MISMATCH', `the URL publishes version ${version} but the manifest says ${JSON.stringify(m.version)}`, {
      details: { url: version, manifest: m.version },
    });
  }
  checks.push({ check: 'name_binding', detail: `manifest name and version equal ${ref.full}@${version}` });
  validateVersion(version);
  checks.push({ check: 'version', detail: 'strict SemVer 2.0.0, at most 64 characters' });
  const visibility = visibilityOf(m.visibility);
  const dependencies = asDependencies(m.dependencies);
  checkDependencies(dependencies);
  checks.push({ check: 'dependency_syntax', detail: `${dependencies.length} dependency name(s) and range(s) parse as clients parse them` });
  const globIssues = pkg.graph ? scopeGlobIssues(pkg.graph) : [];
  if (globIssues.length > 0) throw errorFromIssues(globIssues.map((i) => ({ ...i, path: `content.context_graph.${i.path}` })));
  checks.push({ check: 'scope_globs', detail: 'every scope glob is within the matcher bounds' });

  const targets = collectScanTargets(pkg);
  const findings = targets.texts.flatMap((t) => scanSecrets(t.text).map((f) => ({ path: t.path, kind: f.kind, line: f.line, column: f.column })));
  if (findings.length > 0) {
    throw new CtxpkgError('E_SECRET', `the package contains ${findings.length} likely secret(s): ${[...new Set(findings.map((f) => f.kind))].sort().join(', ')}`, {
      hint: 'remove or redact them (ctxpkg create --redact) and publish a new build',
      details: { findings: findings.slice(0, 100) },
    });
  }
  checks.push({ check: 'secrets', detail: `${targets.texts.length} text field(s) screened, no secrets found` });

  const description = typeof m.description === 'string' ? m.description : '';
  const tags = asStringArray(m.tags);
  return {
    form: pkg.form,
    visibility,
    description,
    tags,
    dependencies,
    integrity_sha256: String(m.integrity?.sha256 ?? ''),
    signer_public_key: pkg.signer,
    search_text: searchText(ref.full, description, tags, pkg, limits.searchTextChars),
    blobs: pkg.blobs ?? new Map(),
    checks,
    skipped: targets.skipped,
  };
}

/**
 * `ctxpkg info <file> [--json]`: show a package file — manifest, layers, counts, signer and each
 * verification check (spec/format.md §3). Works on invalid packages too, showing what could be
 * read, and then exits 1. `describePackage(bytes, label)` does the work from bytes, so a remote
 * source (`info @ns/name[@version]`, downloaded by the registry client) is a small addition in
 * `runInfo`.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Manifest, PackageContent, PackageChecks } from '@ctxpkg/format';
import type { IndexEntry, VersionDoc } from '../client.js';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';
import { sourceFileHint } from '../package-file.js';
import { checkLines, signatureVerdict } from './verify.js';


/** Counts of everything a package carries. */
export interface ContentCounts {
  graph_nodes: number;
  graph_edges: number;
  facts: number;
  patterns: number;
  insights: number;
  code_nodes: number;
  code_edges: number;
  session: boolean;
  gotchas: number;
  documents: number;
  addon: boolean;
}

function counts(c: PackageContent | undefined): ContentCounts {
  return {
    graph_nodes: c?.context_graph?.nodes.length ?? 0,
    graph_edges: c?.context_graph?.edges.length ?? 0,
    facts: c?.knowledge?.facts.length ?? 0,
    patterns: (c?.knowledge?.patterns.length ?? 0) + (c?.patterns?.patterns.length ?? 0),
    insights: c?.knowledge?.insights.length ?? 0,
    code_nodes: c?.graph?.nodes.length ?? 0,
    code_edges: c?.graph?.edges.length ?? 0,
    session: c?.session !== undefined,
    gotchas: c?.gotchas?.gotchas.length ?? 0,
    documents: c?.documents?.files.length ?? 0,
    addon: c?.addon !== undefined,
  };
}

function presentLayers(c: PackageContent | undefined): string[] {
  const all = ['knowledge', 'graph', 'session', 'patterns', 'gotchas', 'context_graph', 'addon', 'documents'] as const;
  return c ? all.filter((k) => c[k] !== undefined) : [];
}

function manifestLines(m: Manifest, c: PackageContent | undefined): string[] {
  const n = counts(c);
  const lines = [
    `${m.name}@${m.version}`,
    `description: ${m.description === '' ? '(none)' : m.description}`,
    `kind: ${m.kind}   schema: ${m.schema_version}   conformance level: ${m.conformance_level ?? '(none)'}`,
    `declared layers: ${m.layers.length ? m.layers.join(', ') : '(none)'}   present: ${presentLayers(c).join(', ') || '(none)'}`,
  ];
  if (c?.context_graph) {
    const types = [...new Set(c.context_graph.nodes.map((x) => x.type))].sort();
    lines.push(`graph: ${n.graph_nodes} nodes, ${n.graph_edges} edges; node types: ${types.join(', ') || '(none)'}`);
  }
  const v1 = [
    n.facts && `${n.facts} facts`, n.patterns && `${n.patterns} patterns`, n.insights && `${n.insights} insights`,
    n.code_nodes && `${n.code_nodes} code nodes`, n.code_edges && `${n.code_edges} code edges`, n.session && 'a session',
    n.gotchas && `${n.gotchas} gotchas`, n.documents && `${n.documents} documents`, n.addon && 'an addon manifest',
  ].filter(Boolean);
  if (v1.length) lines.push(`contains: ${v1.join(', ')}`);
  lines.push(`dependencies: ${m.dependencies.length ? m.dependencies.map((d) => `${d.name} ${d.version_req}${d.optional ? ' (optional)' : ''}`).join(', ') : '(none)'}`);
  if (m.tags.length) lines.push(`tags: ${m.tags.join(', ')}`);
  // The manifest field is only a declaration: without one the registry decides (a first publish is
  // private unless `--public`), so "public" here would contradict what the registry serves.
  lines.push(`visibility: ${m.visibility ? `${m.visibility} (declared in the manifest)` : 'none declared in the manifest (a first publish is private unless --public)'}`);
  lines.push(`created: ${m.created_at}${m.updated_at ? `   updated: ${m.updated_at}` : ''}${m.author ? `   author: ${m.author}` : ''}`);
  lines.push(`provenance: ${m.provenance.tool} ${m.provenance.tool_version}`);
  lines.push(`integrity: content_hash ${m.integrity.content_hash}  sha256 ${m.integrity.sha256}  byte_size ${m.integrity.byte_size}`);
  return lines;
}

/**
 * Describe a package from its bytes; `label` names the source (file path or `@ns/name@v`).
 * Never throws for bad packages; exit code 1 when invalid.
 */
export async function describePackage(bytes: Uint8Array, label: string): Promise<CommandResult> {
  const f = await import('@ctxpkg/format');
  const { signerLabel } = await import('../signer-label.js');
  let manifest: Manifest | undefined;
  let content: PackageContent | undefined;
  let checks: PackageChecks;
  let errors: Array<{ code: string; message: string; path?: string }>;
  let valid = false;
  let signer: string | undefined;
  let signatureOnlyManifest = false;
  let form: 'json' | 'zip' | undefined;
  let blobs: Array<{ ref: string; bytes: number }> = [];
  try {
    const parts = await f.decodePackageParts(bytes);
    const v = await f.verifyParts(parts);
    ({ manifest, content, valid } = v);
    // "signed by" only when the content is what the key signed (verify.ts signatureVerdict).
    ({ checks, signer } = signatureVerdict(v.checks, v.signer, (k) => signerLabel(k, { full: true })));
    if (v.signer && !signer) signatureOnlyManifest = true;
    form = parts.form;
    // Blobs of either form (spec/archive.md §4, §4.4), sorted by name.
    blobs = [...(parts.blobs ?? new Map<string, Uint8Array>())].map(([ref, b]) => ({ ref, bytes: b.length })).sort((a, b) => (a.ref < b.ref ? -1 : 1));
    errors = v.issues.map((i) => ({ code: i.code, message: i.path ? `${i.path}: ${i.message}` : i.message, ...(i.path ? { path: i.path } : {}) }));
  } catch (e) {
    if (!f.isCtxpkgError(e)) throw e;
    checks = f.failedChecks(e.code, e.message);
    errors = [{ code: e.code, message: e.message }];
  }
  const fingerprint = signer ? f.keyFingerprint(signer) : undefined;
  const blobText = blobs.length ? `, ${blobs.length} blob${blobs.length === 1 ? '' : 's'} of ${blobs.reduce((a, b) => a + b.bytes, 0)} bytes` : '';
  const text = [`${label}${form ? ` (${form === 'zip' ? 'ZIP form' : 'JSON bundle'}, ${bytes.length} bytes${blobText})` : ''}: ${valid ? 'VALID' : 'INVALID'}`];
  if (manifest) text.push(...manifestLines(manifest, content).map((l) => `  ${l}`));
  // Only a package that could be read has a signer, or is known to be unsigned.
  const signerText = signer
    ? signerLabel(signer, { full: true })
    : !manifest
      ? 'unknown (the package could not be read)'
      : signatureOnlyManifest
        ? 'none for this content (the manifest carries a valid signature, but the content does not match it)'
      : manifest.signature
        ? 'signature did not verify'
        : 'unsigned';
  text.push(`  signer: ${signerText}`);
  text.push('  checks:', ...checkLines(checks, '    '));
  for (const e of errors) text.push(`  error ${e.code}: ${e.message}`);
  const hint = manifest ? undefined : sourceFileHint(label, bytes);
  if (hint) text.push(`  hint: ${hint}`);
  return {
    text,
    json: {
      file: label,
      valid,
      form: form ?? null,
      size_bytes: bytes.length,
      blobs,
      manifest: manifest ?? null,
      layers: presentLayers(content),
      counts: counts(content),
      signer: signer ?? null,
      fingerprint: fingerprint ?? null,
      checks,
      errors,
      ...(hint ? { hint } : {}),
    },
    exitCode: valid ? 0 : 1,
  };
}

/**
 * `info @ns/name[@version]`: the package from the registry of its scope (default: the newest
 * non-yanked version), downloaded with the artifact hash checked against the index, plus the
 * registry's version list. Throws `E_NOT_FOUND`, `E_ARTIFACT_CHECKSUM`, client errors.
 */
export async function runRemoteInfo(target: string, registryFlag: string | undefined, deps: CliDeps): Promise<CommandResult> {
  const f = await import('@ctxpkg/format');
  const { openSession } = await import('../session.js');
  const { boundScopes, registryFor } = await import('../config.js');
  const { sha256Bytes } = await import('../store.js');
  const { signerLabel } = await import('../signer-label.js');
  const at = target.indexOf('@', 1);
  const name = at > 0 ? target.slice(0, at) : target;
  const pinned = at > 0 ? target.slice(at + 1) : undefined;
  f.parsePackageName(name);
  if (pinned !== undefined) f.validateVersion(pinned);
  const session = openSession(deps, registryFlag);
  const registry = registryFor(name, session.settings);
  const { withNameSuggestions } = await import('../suggest.js');
  const index = await session.client.index(registry, name).catch(async (e: unknown) => {
    throw await withNameSuggestions(e, session.client, registry, name, boundScopes(session.settings));
  });
  const live = index.versions.filter((v) => !v.yanked).map((v) => v.version).sort(f.compareVersions);
  const version = pinned ?? live[live.length - 1];
  const entry = index.versions.find((v) => v.version === version);
  if (!version || !entry) throw new f.CtxpkgError('E_NOT_FOUND', `${name}${pinned ? `@${pinned}` : ''} has no ${pinned ? 'such' : 'installable'} version on ${registry}`);
  const bytes = await session.client.download(registry, name, version, entry.artifact_sha256);
  const found = sha256Bytes(bytes);
  if (found !== entry.artifact_sha256) {
    throw new f.CtxpkgError('E_ARTIFACT_CHECKSUM', `${name}@${version}: downloaded bytes hash to ${found}, but the registry index says ${entry.artifact_sha256}`);
  }
  const doc = await session.client.version(registry, name, version);
  const r = await describePackage(bytes, `${name}@${version}`);
  const facts = registryFacts(entry, doc, found, signerLabel, index.visibility);
  r.text.push(`  registry: ${registry}`, ...facts.lines.map((l) => `    ${l}`));
  r.text.push(`  versions: ${index.versions.map((v) => `${v.version}${v.yanked ? ' (yanked)' : ''}`).join(', ')}`);
  r.json = {
    ...(r.json as Record<string, unknown>),
    registry,
    yanked: entry.yanked,
    registry_facts: facts.json,
    versions: index.versions.map((v) => ({ version: v.version, yanked: v.yanked, published_at: v.published_at ?? null })),
  };
  return r;
}

/**
 * What the registry says about one version (spec/registry.md §4, §6.1): artifact SHA-256 (and
 * that the download matched it), size, publish time, yank state, the signer it recorded, the
 * package's visibility from its index (`visibility`, when the registry names it), and a
 * summary of its trust report (checks passed/failed and what it did not check). `signerLabel`
 * shows a key (signer-label.ts, loaded by the caller: the command module stays light).
 */
export function registryFacts(
  entry: IndexEntry,
  doc: VersionDoc | undefined,
  downloadedSha: string,
  signerLabel: (publicKeyHex: string) => string,
  visibility?: string,
): { lines: string[]; json: Record<string, unknown> } {
  const sha = doc?.artifact_sha256 ?? entry.artifact_sha256;
  const size = doc?.size_bytes ?? entry.size_bytes;
  const published = doc?.published_at ?? entry.published_at;
  const yanked = doc?.yanked ?? entry.yanked;
  const signer = doc?.signer_public_key ?? entry.signer_public_key;
  const lines = [
    `artifact sha256: ${sha} (${sha === downloadedSha ? 'the download matches' : `the download hashes to ${downloadedSha}`})`,
    `size: ${size === undefined ? 'not given' : `${size} bytes`}   published: ${published ?? 'not given'}   yanked: ${yanked ? `yes${doc?.yanked_at ? ` (${doc.yanked_at})` : ''}` : 'no'}`,
    `signer (as recorded by the registry): ${signer ? signerLabel(signer) : 'none recorded'}`,
  ];
  if (visibility !== undefined) lines.push(`visibility on the registry: ${visibility}${visibility === 'private' ? ' (only tokens of its namespace see it)' : ''}`);
  const report = doc?.trust_report;
  let trust: Record<string, unknown> | null = null;
  if (report && Array.isArray(report.checked)) {
    const checked = report.checked.filter((c) => c && typeof c.check === 'string');
    const failed = checked.filter((c) => c.result !== 'pass').map((c) => `${c.check}: ${c.result ?? '?'}`);
    const notChecked = (report.not_checked ?? []).map((c) => c?.check).filter((c): c is string => typeof c === 'string');
    lines.push(`trust report: ${checked.length - failed.length} of ${checked.length} checks passed${failed.length ? ` (${failed.join(', ')})` : ''}; not checked: ${notChecked.join(', ') || 'none'}`);
    trust = { checks: checked.length, passed: checked.length - failed.length, failed, not_checked: notChecked };
  } else {
    lines.push('trust report: not offered by this registry');
  }
  return {
    lines,
    json: { artifact_sha256: sha, download_matches: sha === downloadedSha, visibility: visibility ?? null, size_bytes: size ?? null, published_at: published ?? null, yanked, yanked_at: doc?.yanked_at ?? null, signer_public_key: signer ?? null, signer: signer ? signerLabel(signer) : null, trust_report: trust },
  };
}

/** `info <target>`: a package file (relative to the working directory). Throws `E_NOT_FOUND`, `E_USAGE` (a directory), `E_IO`. */
export async function runInfo(target: string, deps: CliDeps, registryFlag?: string): Promise<CommandResult> {
  const { readPackageFile } = await import('../package-file.js');
  const { existsSync } = await import('node:fs');
  if (target.startsWith('@') && !existsSync(resolve(deps.cwd, target))) return runRemoteInfo(target, registryFlag, deps);
  return describePackage(readPackageFile(resolve(deps.cwd, target), target), target);
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'info <file|@ns/name[@version]>', 'show a package file, or a package on its registry: manifest, layers, counts, signer and every check')
    .option('--registry <url>', 'registry for packages whose scope has no registry configured')
    .addHelpText('after', examples(['ctxpkg info acme-auth-context-2.0.0.ctxpkg', 'ctxpkg info pkg.ctxpkg --json', 'ctxpkg info @acme/auth-context', 'ctxpkg info @acme/auth-context@2.0.0 --json']))
    .action(ctx.action(async (target: string, opts: { registry?: string }) => runInfo(target, ctx.deps, opts.registry)));
}

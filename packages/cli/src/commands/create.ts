/**
 * `ctxpkg create --name @ns/name --from <paths…>`: turn agent-instruction files into a signed
 * `.ctxpkg` (see ../create.ts for the rules and spec/format.md "Importers, provenance and scope").
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export interface CreateCliOptions {
  name?: string;
  version?: string;
  description?: string;
  author?: string;
  tag?: string[];
  dep?: string[];
  private?: boolean;
  from?: string[];
  root?: string;
  out?: string;
  key?: string;
  redact?: boolean;
  dryRun?: boolean;
  archive?: boolean;
}

/** JSON bundles larger than this (bytes) are written in the ZIP form automatically (spec/archive.md). */
export const AUTO_ARCHIVE_BYTES = 4 * 1024 * 1024;

/**
 * The signed JSON text of the package whose graph has its large content in blobs: the text the
 * archive's `ctxpkg.json` and `content.json` are cut from. Its limit is the JSON bundle's
 * (10 MiB, `E_TOO_LARGE`): what stays inline — every node's excerpt and fields — must fit.
 */
function buildArchiveText(build: () => Uint8Array): Uint8Array {
  try {
    return build();
  } catch (err) {
    const e = err as { code?: string; message?: string; details?: Record<string, unknown> };
    if (e.code !== 'E_TOO_LARGE') throw err;
    throw new CtxpkgError('E_TOO_LARGE', `even with large node content in blobs, ${e.message ?? 'the package is too large'}`, {
      hint: 'nodes above 16 KiB go into blobs; many smaller nodes must still fit 10 MiB of JSON: split the sources into several packages',
      ...(e.details ? { details: e.details } : {}),
    });
  }
}

export async function runCreate(opts: CreateCliOptions, deps: CliDeps): Promise<CommandResult> {
  if (!opts.name) throw new CtxpkgError('E_USAGE', 'create needs --name @namespace/name');
  if (!opts.from || opts.from.length === 0) throw new CtxpkgError('E_USAGE', 'create needs --from <paths…>');
  const { importForCreate, buildCreated, defaultOutputName } = await import('../create.js');
  const input = {
    name: opts.name,
    version: opts.version ?? '1.0.0',
    description: opts.description,
    author: opts.author,
    tags: opts.tag,
    deps: opts.dep,
    private: opts.private,
    root: resolve(deps.cwd, opts.root ?? '.'),
    cwd: deps.cwd,
    from: opts.from,
    redact: opts.redact,
    created_at: deps.clock(),
  };
  const imported = importForCreate(input);
  const counts: Record<string, number> = {};
  for (const n of imported.graph.nodes) counts[n.type] = (counts[n.type] ?? 0) + 1;
  const countText = Object.keys(counts).sort().map((t) => `${counts[t]} ${t}`).join(', ');
  const nodesJson = imported.graph.nodes.map((n) => ({ id: n.id, type: n.type, content: n.content, file_path: n.file_path, line_start: n.line_start, line_end: n.line_end }));
  const warnings = [...imported.warnings, ...imported.redacted.map((r) => `redacted a ${r.kind} at ${r.file}:${r.line}`)];
  if (opts.dryRun) {
    const text = [`${input.name}@${input.version}: ${imported.graph.nodes.length} nodes (${countText}), ${imported.graph.edges.length} edges from ${imported.files.length} file(s) — dry run, nothing written`];
    for (const n of imported.graph.nodes) {
      const where = n.line_start ? `${n.file_path}:${n.line_start}${n.line_end !== n.line_start ? `-${n.line_end}` : ''}` : n.file_path;
      text.push(`  [${n.type}] ${n.content.replace(/\s+/g, ' ').slice(0, 100)}  (${where})`);
    }
    return { text, json: { name: input.name, version: input.version, dry_run: true, files: imported.files, nodes: nodesJson, edges: imported.graph.edges.length, skipped: imported.skipped, unresolved_imports: imported.unresolved }, warnings };
  }
  const { loadSigningKey } = await import('../signing-key.js');
  const key = loadSigningKey(deps, opts.key);
  const { readPackage, jsonBundleToArchive, isCtxpkgError } = await import('@ctxpkg/format');
  // The JSON bundle unless asked for the ZIP form, or the bundle is above the threshold or the
  // 10 MiB package limit; the ZIP form moves large node content into blobs (spec/archive.md §4.2).
  let json: Uint8Array | undefined;
  if (!opts.archive) {
    try {
      json = buildCreated(input, imported.graph, key.seed);
    } catch (err) {
      if (!isCtxpkgError(err) || err.code !== 'E_TOO_LARGE') throw err;
    }
  }
  let bytes: Uint8Array;
  let blobCount = 0;
  if (json !== undefined && json.length <= AUTO_ARCHIVE_BYTES) {
    bytes = json;
  } else {
    const { moveLargeContentToBlobs } = await import('../create-blobs.js');
    const { graph, blobs } = moveLargeContentToBlobs(imported.graph);
    blobCount = blobs.size;
    bytes = await jsonBundleToArchive(buildArchiveText(() => buildCreated(input, graph, key.seed)), { blobs });
  }
  const check = await readPackage(bytes, { requireSignature: true });
  const out = resolve(deps.cwd, opts.out ?? defaultOutputName(input.name, input.version));
  const { writeFileAtomic } = await import('../fsutil.js');
  writeFileAtomic(out, bytes);
  const { sha256Bytes } = await import('../store.js');
  const text = [
    ...(key.created ? [`created signing key ${key.path}`] : []),
    `wrote ${out} (${bytes.length} bytes, ${check.form === 'zip' ? `ZIP form, ${blobCount} blob${blobCount === 1 ? '' : 's'}` : 'JSON bundle'})`,
    `${input.name}@${input.version}: ${imported.graph.nodes.length} nodes (${countText}), ${imported.graph.edges.length} edges from ${imported.files.length} file(s)`,
    `signed by ${(await import('../signer-label.js')).signerLabel(key.publicKey)}`,
  ];
  return {
    text,
    json: {
      name: input.name, version: input.version, file: out, bytes: bytes.length, form: check.form, blobs: blobCount, artifact_sha256: sha256Bytes(bytes),
      signer: { public_key: key.publicKey, fingerprint: key.fingerprint, key_created: key.created },
      files: imported.files, nodes: imported.graph.nodes.length, edges: imported.graph.edges.length, types: counts, skipped: imported.skipped, unresolved_imports: imported.unresolved,
    },
    warnings,
  };
}

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'create', 'create a signed .ctxpkg from AGENTS.md, CLAUDE.md, Cursor/Copilot rules, Markdown or JSON sources')
    .option('--name <@ns/name>', 'package name')
    .option('--version <version>', 'package version (SemVer)', '1.0.0')
    .option('--description <text>', 'package description')
    .option('--author <name>', 'author')
    .option('--tag <tag>', 'tag (repeatable)', collect)
    .option('--dep <@ns/name@range>', 'dependency (repeatable)', collect)
    .option('--private', 'mark the package private on the registry')
    .option('--from <paths...>', 'source files or folders')
    .option('--root <dir>', 'source root: provenance paths are relative to it (default: current directory)')
    .option('--out <file>', 'output file (default: <scope>-<name>-<version>.ctxpkg)')
    .option('--key <file>', 'signing key file (default: the user key, created on first use)')
    .option('--redact', 'replace secrets with [REDACTED:kind] instead of refusing')
    .option('--dry-run', 'show the nodes without writing anything')
    .option('--archive', 'write the ZIP form, node content above 16 KiB as blobs (automatic above 4 MiB)')
    .addHelpText(
      'after',
      examples([
        'ctxpkg create --name @acme/agents --from AGENTS.md',
        'ctxpkg create --name @acme/rules --version 1.2.0 --from .cursor/rules CLAUDE.md --dry-run',
        'ctxpkg create --name @acme/kb --from kb.json --out dist/kb.ctxpkg --redact',
      ]),
    )
    .action(ctx.action(async (opts: CreateCliOptions) => runCreate(opts, ctx.deps)));
}

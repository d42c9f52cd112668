/**
 * `ctxpkg convert <in> <out> [--to json|zip]`: convert a package between the JSON bundle and the
 * ZIP form (spec/archive.md §8), keeping `content_hash`, `sha256` and the signature valid. Blobs
 * travel both ways: a JSON bundle carries them in its top-level `blobs` member (§4.4), which the
 * reference ignores; ZIP → JSON → ZIP gives back the same bytes.
 *
 * Order (ARCHITECTURE "Errors": validate fully, then write atomically): read the input, verify it
 * completely (`readPackage`), convert, verify the output and check it carries the same integrity
 * and signature, then write it with temp file + fsync + rename. A rejected input writes nothing;
 * the input file is never overwritten, an existing output only with `--force`.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import * as zlib from 'node:zlib';
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { VerifiedPackage, ZstdCompressor } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';
import { readIfExists, writeFileAtomic } from '../fsutil.js';

export interface ConvertOptions {
  /** Target form; default: the other form. */
  to?: string;
  /** Which entries of a ZIP become zstd frames. */
  zstd?: string;
  /** Leave out `rebuild.json` when converting to JSON. */
  dropRebuild?: boolean;
  /** Overwrite an existing output file (never the input). */
  force?: boolean;
}

/**
 * The runtime's zstd compressor when it has one (Node ≥ 22.15: `zlib.zstdCompressSync`), set to
 * write the content checksum; `undefined` on older runtimes, where the archive writer's built-in
 * raw/RLE frame encoder is used (spec/archive.md §3).
 */
export function nodeZstdCompressor(): ZstdCompressor | undefined {
  const z = zlib as unknown as {
    zstdCompressSync?: (b: Uint8Array, o?: unknown) => Buffer;
    constants: Record<string, number>;
  };
  if (typeof z.zstdCompressSync !== 'function') return undefined;
  const params: Record<number, number> = {};
  const level = z.constants['ZSTD_c_compressionLevel'];
  const checksum = z.constants['ZSTD_c_checksumFlag'];
  if (level !== undefined) params[level] = 19; // window ≤ 8 MiB: within the reader's default
  if (checksum !== undefined) params[checksum] = 1;
  return (bytes) => {
    const out = z.zstdCompressSync!(bytes, { params, pledgedSrcSize: bytes.length });
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  };
}

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

function fingerprint(p: VerifiedPackage): string {
  const i = p.manifest.integrity;
  const s = p.manifest.signature;
  return JSON.stringify([p.manifest.name, p.manifest.version, i.content_hash, i.sha256, i.byte_size, s?.public_key ?? null, s?.value ?? null, p.signer ?? null]);
}

/**
 * Convert `inPath` to `outPath` (paths relative to `deps.cwd`). Throws `E_USAGE` (bad `--to` or
 * `--zstd`, output is the input, input already in the target form), `E_EXISTS` (output exists
 * without `--force`), `E_NOT_FOUND` (no input), every `readPackage` code for an invalid input, conversion codes
 * (`E_ARCHIVE` for rebuild.json going to JSON, `E_TOO_LARGE` when the blobs in base64 would
 * take a JSON bundle above 10 MiB, `E_STRUCTURE`, `E_BLOB`), `E_IO`.
 */
export async function runConvert(inPath: string, outPath: string, opts: ConvertOptions, deps: CliDeps): Promise<CommandResult> {
  const input = resolve(deps.cwd, inPath);
  const output = resolve(deps.cwd, outPath);
  if (opts.to !== undefined && opts.to !== 'json' && opts.to !== 'zip') {
    throw new CtxpkgError('E_USAGE', `--to must be "json" or "zip", got ${JSON.stringify(opts.to)}`);
  }
  const zstd = opts.zstd ?? 'none';
  if (zstd !== 'none' && zstd !== 'blobs' && zstd !== 'all') {
    throw new CtxpkgError('E_USAGE', `--zstd must be "none", "blobs" or "all", got ${JSON.stringify(zstd)}`);
  }
  if (sameFile(input, output)) {
    throw new CtxpkgError('E_USAGE', 'the output is the input file; convert never overwrites its input', {
      hint: 'give a different output path',
    });
  }
  const bytes = readIfExists(input);
  if (!bytes) throw new CtxpkgError('E_NOT_FOUND', `no such file: ${inPath}`);
  const { archiveToJsonBundle, isZipBytes, jsonBundleToArchive, readPackage } = await import('@ctxpkg/format');
  const from = isZipBytes(bytes) ? 'zip' : 'json';
  const to = (opts.to ?? (from === 'zip' ? 'json' : 'zip')) as 'json' | 'zip';
  if (to === from) throw new CtxpkgError('E_USAGE', `${inPath} is already in the ${from === 'zip' ? 'ZIP form' : 'JSON bundle form'}`);
  if (!opts.force && readIfExists(output) !== undefined) {
    throw new CtxpkgError('E_EXISTS', `${outPath} already exists`, { hint: 'pass --force to replace it' });
  }

  const before = await readPackage(bytes);
  let converted: Uint8Array;
  if (to === 'zip') {
    const compressor = zstd === 'none' ? undefined : nodeZstdCompressor();
    converted = await jsonBundleToArchive(bytes, { zstd, ...(compressor ? { zstdCompressor: compressor } : {}) });
  } else {
    if (zstd !== 'none') throw new CtxpkgError('E_USAGE', '--zstd applies only when converting to zip');
    converted = await archiveToJsonBundle(bytes, { dropRebuild: opts.dropRebuild ?? false });
  }
  const after = await readPackage(converted);
  if (fingerprint(after) !== fingerprint(before)) {
    throw new CtxpkgError('E_INTERNAL', 'the converted package does not carry the same integrity and signature; nothing written', {
      details: { before: fingerprint(before), after: fingerprint(after) },
    });
  }
  writeFileAtomic(output, converted);
  const m = after.manifest;
  return {
    text: [
      `converted ${inPath} (${from}, ${bytes.length} bytes) → ${outPath} (${to}, ${converted.length} bytes)`,
      `${m.name}@${m.version}  content_hash ${m.integrity.content_hash}  ${after.signer ? `signed by ${after.signer}` : 'unsigned'}`,
    ],
    json: {
      input: inPath,
      output: outPath,
      from,
      to,
      input_bytes: bytes.length,
      output_bytes: converted.length,
      name: m.name,
      version: m.version,
      content_hash: m.integrity.content_hash,
      sha256: m.integrity.sha256,
      signer: after.signer ?? null,
    },
  };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'convert <in> <out>', 'convert a package between the JSON bundle and the ZIP form (hashes and signature kept)')
    .option('--to <form>', 'target form: json or zip (default: the other form)')
    .option('--zstd <entries>', 'zip only: store none, blobs or all entries as zstd frames', 'none')
    .option('--drop-rebuild', 'json only: leave out rebuild.json (it is not signed)')
    .option('--force', 'replace an existing output file (never the input)')
    .addHelpText(
      'after',
      examples(['ctxpkg convert pkg.ctxpkg pkg.zip.ctxpkg --to zip', 'ctxpkg convert pkg.zip.ctxpkg pkg.ctxpkg   # blobs go into the bundle\'s "blobs" member']),
    )
    .action(
      ctx.action(async (inPath: string, outPath: string, opts: ConvertOptions) => runConvert(inPath, outPath, opts, ctx.deps)),
    );
}

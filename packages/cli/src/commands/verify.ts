/**
 * `ctxpkg verify <file…> [--json] [--require-signature]`: verify package files (JSON bundle or
 * ZIP form) and print each check — structure, content_hash, sha256, byte_size, signature — as
 * `pass`, `FAIL` or `skipped` (the reference's `pack verify`, FORMAT-FACTS §10; checks in
 * spec/format.md §3). Exit codes (issue 2 item 8; README "Exit codes"): 0 when every file is
 * valid; 1 when any file is invalid, missing or unreadable (a missing file is a per-file failure:
 * `structure` FAIL with `E_NOT_FOUND`, a directory or I/O error likewise with its code; the other
 * files are still verified); 2 for a usage error. `--json`
 * prints an array with one `{ file, valid, missing, signer, checks, errors }` per file, in
 * argument order. A passing signature check names the signer as `fingerprint (public key …)` —
 * only when the content matches the signed manifest; otherwise it says the content is not what
 * the key signed, and `signer` is null (`signatureVerdict`).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { PackageChecks, VerifyReport } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';


export interface VerifyCommandOptions {
  /** Treat unsigned packages as invalid (`E_UNSIGNED`). */
  requireSignature?: boolean;
}

/** One file's result, as printed with `--json`. */
export interface FileVerdict {
  file: string;
  valid: boolean;
  /** True when the file does not exist (then `valid` is false and `errors` holds `E_NOT_FOUND`). */
  missing: boolean;
  /** The signer's public key (64 hex) when the signature verified and the content matches the signed manifest, else null. */
  signer: string | null;
  checks: PackageChecks;
  errors: Array<{ code: string; message: string; path?: string }>;
}

const ORDER = ['structure', 'content_hash', 'sha256', 'byte_size', 'signature'] as const;

/** Text lines for a check table: `  structure     pass   detail` (FAIL in capitals). */
export function checkLines(checks: PackageChecks, indent = '  '): string[] {
  return ORDER.map((name) => {
    const c = checks[name];
    const status = c.status === 'fail' ? 'FAIL' : c.status;
    return `${indent}${name.padEnd(13)} ${status.padEnd(7)} ${c.detail}`.trimEnd();
  });
}

/**
 * What a valid signature says about these bytes. The signature covers the manifest's name,
 * version and claimed `integrity.sha256` (spec/format.md §12), not the content itself: when the
 * content does not match the manifest (`content_hash` or `sha256` FAIL), the signer did not sign
 * this content, and "signed by" would be untrue. Returns the checks with the signature's detail
 * in those words (`label` shows a key, signer-label.ts) and the signer of *this content*: the
 * key when the signature verified and the content matches, else undefined.
 */
export function signatureVerdict(checks: PackageChecks, signer: string | undefined, label: (key: string) => string): { checks: PackageChecks; signer: string | undefined } {
  if (!signer || checks.signature.status !== 'pass') return { checks, signer: undefined };
  const intact = checks.content_hash.status === 'pass' && checks.sha256.status === 'pass';
  const detail = intact
    ? `signed by ${label(signer)}`
    : `the signature by ${label(signer)} is valid for the manifest, but the content does not match the manifest's hashes: this content is not what it signed`;
  return { checks: { ...checks, signature: { ...checks.signature, detail } }, signer: intact ? signer : undefined };
}

async function verifyOne(file: string, opts: VerifyCommandOptions, deps: CliDeps): Promise<FileVerdict> {
  const f = await import('@ctxpkg/format');
  const { readPackageFile } = await import('../package-file.js');
  const { signerLabel } = await import('../signer-label.js');
  let bytes: Uint8Array;
  try {
    bytes = readPackageFile(resolve(deps.cwd, file), file);
  } catch (e) {
    if (!f.isCtxpkgError(e)) throw e;
    return { file, valid: false, missing: e.code === 'E_NOT_FOUND', signer: null, checks: f.failedChecks(e.code, e.message), errors: [{ code: e.code, message: e.message }] };
  }
  const report: VerifyReport = await f.verifyPackage(bytes, { requireSignature: opts.requireSignature ?? false });
  const { checks, signer } = signatureVerdict(report.checks, report.signer, (k) => signerLabel(k));
  return {
    file,
    valid: report.valid,
    missing: false,
    signer: signer ?? null,
    checks,
    errors: report.errors.map((e) => ({ code: e.code, message: e.message, ...(e.path ? { path: e.path } : {}) })),
  };
}

/**
 * Verify every file; never throws for bad, missing or unreadable files (they are reported per
 * file). Exit code (issue 2 item 8): 0 all valid, 1 any invalid, missing or unreadable.
 */
export async function runVerify(files: string[], opts: VerifyCommandOptions, deps: CliDeps): Promise<CommandResult> {
  const verdicts: FileVerdict[] = [];
  for (const file of files) verdicts.push(await verifyOne(file, opts, deps));
  const text: string[] = [];
  for (const v of verdicts) {
    text.push(`${v.file}: ${v.missing ? 'MISSING' : v.valid ? 'VALID' : 'INVALID'}`, ...checkLines(v.checks));
    for (const e of v.errors) text.push(`  error ${e.code}: ${e.message}`);
  }
  const missing = verdicts.filter((v) => v.missing).length;
  const invalid = verdicts.filter((v) => !v.valid && !v.missing).length;
  const failed = verdicts.filter((v) => !v.valid).length;
  if (files.length > 1) {
    const parts = [invalid > 0 && `${invalid} invalid`, missing > 0 && `${missing} missing`].filter(Boolean);
    text.push(parts.length === 0 ? `all ${files.length} packages are valid` : `${parts.join(', ')} of ${files.length} packages`);
  }
  return { text, json: verdicts, exitCode: failed > 0 ? 1 : 0 };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'verify <files...>', 'verify package files: structure, content_hash, sha256, byte_size, signature')
    .option('--require-signature', 'treat unsigned packages as invalid')
    .addHelpText('after', examples(['ctxpkg verify acme-auth-context-2.0.0.ctxpkg', 'ctxpkg verify *.ctxpkg --json']) + '\nA missing or unreadable file is reported as that file\'s failure (structure FAIL, E_NOT_FOUND or E_IO);\nthe other files are still verified.\nExit codes: 0 all valid; 1 any file invalid, missing or unreadable; 2 usage error.\n')
    .action(ctx.action(async (files: string[], opts: VerifyCommandOptions) => runVerify(files, opts, ctx.deps)));
}

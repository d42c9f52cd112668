/**
 * `ctxpkg verify <file…> [--json] [--require-signature]`: verify package files (JSON bundle or
 * ZIP form) and print each check — structure, content_hash, sha256, byte_size, signature — as
 * `pass`, `FAIL` or `skipped` (the reference's `pack verify`, FORMAT-FACTS §10; checks in
 * spec/format.md §3). Exit 0 when every file is valid, 1 when any is invalid or unreadable,
 * 2 for a usage error. `--json` prints an array with one `{ file, valid, checks, errors }` per
 * file, in argument order.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { PackageChecks, VerifyReport } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';
import type { CommandResult } from '../output.js';
import type { CommandContext } from '../program.js';

const examples = (lines: string[]) => '\nExamples:\n' + lines.map((l) => `  $ ${l}`).join('\n') + '\n';

export interface VerifyCommandOptions {
  /** Treat unsigned packages as invalid (`E_UNSIGNED`). */
  requireSignature?: boolean;
}

/** One file's result, as printed with `--json`. */
export interface FileVerdict {
  file: string;
  valid: boolean;
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

async function verifyOne(file: string, opts: VerifyCommandOptions, deps: CliDeps): Promise<FileVerdict> {
  const f = await import('@ctxpkg/format');
  const { readIfExists } = await import('../fsutil.js');
  let bytes: Uint8Array | undefined;
  try {
    bytes = readIfExists(resolve(deps.cwd, file));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { file, valid: false, checks: f.failedChecks('E_IO', message), errors: [{ code: 'E_IO', message }] };
  }
  if (!bytes) {
    const message = `no such file: ${file}`;
    return { file, valid: false, checks: f.failedChecks('E_NOT_FOUND', message), errors: [{ code: 'E_NOT_FOUND', message }] };
  }
  const report: VerifyReport = await f.verifyPackage(bytes, { requireSignature: opts.requireSignature ?? false });
  return {
    file,
    valid: report.valid,
    checks: report.checks,
    errors: report.errors.map((e) => ({ code: e.code, message: e.message, ...(e.path ? { path: e.path } : {}) })),
  };
}

/** Verify every file; never throws for bad packages (they are reported). */
export async function runVerify(files: string[], opts: VerifyCommandOptions, deps: CliDeps): Promise<CommandResult> {
  const verdicts: FileVerdict[] = [];
  for (const file of files) verdicts.push(await verifyOne(file, opts, deps));
  const text: string[] = [];
  for (const v of verdicts) {
    text.push(`${v.file}: ${v.valid ? 'VALID' : 'INVALID'}`, ...checkLines(v.checks));
    for (const e of v.errors) text.push(`  error ${e.code}: ${e.message}`);
  }
  const bad = verdicts.filter((v) => !v.valid).length;
  if (files.length > 1) text.push(bad === 0 ? `all ${files.length} packages are valid` : `${bad} of ${files.length} packages are invalid`);
  return { text, json: verdicts, exitCode: bad === 0 ? 0 : 1 };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'verify <files...>', 'verify package files: structure, content_hash, sha256, byte_size, signature')
    .option('--require-signature', 'treat unsigned packages as invalid')
    .addHelpText('after', examples(['ctxpkg verify acme-auth-context-2.0.0.ctxpkg', 'ctxpkg verify *.ctxpkg --json']) + '\nExit codes: 0 all valid, 1 any invalid, 2 usage error.\n')
    .action(ctx.action(async (files: string[], opts: VerifyCommandOptions) => runVerify(files, opts, ctx.deps)));
}

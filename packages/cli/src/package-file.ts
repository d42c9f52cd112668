/**
 * Reading a package file named on the command line (`publish`, `info`, `verify`) and making the
 * errors about it name the file. A format error about bytes that are plainly a source file
 * (Markdown, text, a rule file) gets the hint to run `ctxpkg create --from …` instead.
 */
import { readFileSync, statSync } from 'node:fs';
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format/errors';

/** Extensions of instruction/source files that `create` reads (never a package). */
const SOURCE_EXT = /\.(md|markdown|mdc|txt|cursorrules)$|(^|[\\/])\.cursorrules$/i;

/**
 * The hint for a file that is not a package but looks like a source: a known source extension,
 * or bytes that are neither a JSON object, a ZIP archive nor a zstd frame. Undefined otherwise.
 */
export function sourceFileHint(label: string, bytes?: Uint8Array): string | undefined {
  let looksSource = SOURCE_EXT.test(label);
  if (!looksSource && bytes && bytes.length > 0) {
    let i = 0;
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
    while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
    const b = bytes[i];
    const zip = bytes[0] === 0x50 && bytes[1] === 0x4b;
    const zstd = bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd;
    looksSource = !zip && !zstd && b !== undefined && b !== 0x7b && b >= 0x20 && b < 0x7f;
  }
  return looksSource ? `this looks like a source file, not a package; run \`ctxpkg create --name @ns/name --from ${label}\` to build one` : undefined;
}

/**
 * Read the bytes of a package file. `label` is the path as the user wrote it. Throws
 * `E_NOT_FOUND` (missing), `E_USAGE` (a directory or not a regular file), `E_IO` (unreadable).
 */
export function readPackageFile(path: string, label: string): Uint8Array {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw new CtxpkgError('E_NOT_FOUND', `no such file: ${label}`, { hint: 'check the path of the .ctxpkg file' });
    }
    throw new CtxpkgError('E_IO', `cannot read ${label}: ${(err as Error).message}`);
  }
  if (!st.isFile()) {
    throw new CtxpkgError('E_USAGE', `${label} is ${st.isDirectory() ? 'a directory' : 'not a regular file'}, not a package file`, {
      hint: 'name a .ctxpkg file',
    });
  }
  try {
    return new Uint8Array(readFileSync(path));
  } catch (err) {
    throw new CtxpkgError('E_IO', `cannot read ${label}: ${(err as Error).message}`);
  }
}

/**
 * The same error with the file named in front of its message (`AGENTS.md: unexpected character …`)
 * and, when the file looks like a source, the `ctxpkg create` hint. Other values are returned as is.
 */
export function withFileContext(err: unknown, label: string, bytes?: Uint8Array): unknown {
  if (!isCtxpkgError(err)) return err;
  const message = err.message.startsWith(`${label}:`) ? err.message : `${label}: ${err.message}`;
  const hint = sourceFileHint(label, bytes) ?? err.hint;
  return new CtxpkgError(err.code, message, { ...(hint ? { hint } : {}), ...(err.details ? { details: err.details } : {}), cause: err });
}

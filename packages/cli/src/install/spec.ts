/**
 * Parsing install arguments: `@ns/name`, `@ns/name@<range>` or a local file path
 * (`./x.ctxpkg`, anything ending in `.ctxpkg`). Names and ranges are validated before any
 * network request (ADVERSARIAL HB-05, HB-08, HB-22).
 */
import { CtxpkgError, parsePackageName, parseRange } from '@ctxpkg/format';

export type InstallSpec = { kind: 'registry'; name: string; range?: string } | { kind: 'file'; path: string };

/** Parse one argument. Throws `E_INVALID_NAME`, `E_INVALID_RANGE`/`E_RANGE`. */
export function parseSpec(arg: string): InstallSpec {
  if (arg.endsWith('.ctxpkg') || arg.startsWith('./') || arg.startsWith('../') || arg.startsWith('/')) {
    return { kind: 'file', path: arg };
  }
  const at = arg.indexOf('@', 1);
  const name = at > 0 ? arg.slice(0, at) : arg;
  const range = at > 0 ? arg.slice(at + 1) : undefined;
  parsePackageName(name);
  if (range !== undefined) {
    if (range.trim() === '') throw new CtxpkgError('E_INVALID_RANGE', `empty version range in ${JSON.stringify(arg)}`);
    parseRange(range, { mode: 'write' });
  }
  return { kind: 'registry', name, range };
}

/** Validate every declared dependency of ctxpkg.json (names scoped, ranges readable). */
export function checkDeclared(declared: Record<string, string>): void {
  for (const [name, range] of Object.entries(declared)) {
    if (range.startsWith('file:')) {
      parsePackageName(name);
      continue;
    }
    try {
      parsePackageName(name);
      parseRange(range, { mode: 'read' });
    } catch (err) {
      const e = err as CtxpkgError;
      throw new CtxpkgError(e.code, `ctxpkg.json dependency ${JSON.stringify(name)}: ${e.message}`, { hint: e.hint });
    }
  }
}

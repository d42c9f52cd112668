/**
 * Parsing install arguments: `@ns/name`, `@ns/name@<range>` or a local file path
 * (`./x.ctxpkg`, `file:<path>` as npm writes it, anything ending in `.ctxpkg`). Names and ranges
 * are validated before any network request (ADVERSARIAL HB-05, HB-08, HB-22).
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { CtxpkgError, parsePackageName, parseRange } from '@ctxpkg/format';

/**
 * A word that npm would read as a dist-tag (`latest`, `next`, `beta`): a letter, then letters,
 * digits, `.`, `_` or `-`. Only consulted after the text failed to parse as a range, so `x`, `X`
 * and `*` (wildcards) never reach it.
 */
const DIST_TAG = /^[A-Za-z][A-Za-z0-9._-]*$/;

/**
 * `E_INVALID_RANGE` for a dist-tag where a range belongs (new-user trial 2, item 4): ctxpkg
 * registries have no dist-tags (spec/registry.md has none); the newest version is what a
 * requirement left out resolves to. `where` prefixes the message (the argument or the
 * ctxpkg.json entry); `name` is the package.
 */
function distTagError(where: string, name: string, tag: string): CtxpkgError {
  return new CtxpkgError('E_INVALID_RANGE', `${where}: ${JSON.stringify(tag)} is not a version range; ctxpkg has no dist-tags (such as npm's "latest")`, {
    hint: `leave the version out to get the newest (\`ctxpkg install ${name}\`), or name a version or range (\`ctxpkg install ${name}@^1.2\`)`,
    details: { package: name, range: tag },
  });
}

export type InstallSpec = { kind: 'registry'; name: string; range?: string } | { kind: 'file'; path: string };

/**
 * Parse one argument. `file:<path>` (absolute or relative to the working directory) is the file
 * at that path; it is saved relative to the project root like any other path. Throws
 * `E_INVALID_NAME`, `E_INVALID_RANGE` (not a range at all; for a dist-tag such as `latest` the
 * message says ctxpkg has none and the hint is the install without a version), `E_RANGE` (npm-only syntax such as
 * `>=1 <2`, which ctxpkg.json cannot take: the message says so and the hint gives the install
 * command with the range in the dialect), `E_USAGE` (`file:` with no path).
 */
export function parseSpec(arg: string): InstallSpec {
  if (arg.startsWith('file:')) {
    const path = arg.slice('file:'.length);
    if (path === '') throw new CtxpkgError('E_USAGE', '`file:` names no package file', { hint: 'ctxpkg install file:./vendor/acme-kb-1.0.0.ctxpkg' });
    return { kind: 'file', path };
  }
  if (arg.endsWith('.ctxpkg') || arg.startsWith('./') || arg.startsWith('../') || arg.startsWith('/')) {
    return { kind: 'file', path: arg };
  }
  const at = arg.indexOf('@', 1);
  const name = at > 0 ? arg.slice(0, at) : arg;
  const range = at > 0 ? arg.slice(at + 1) : undefined;
  parsePackageName(name);
  if (range !== undefined) {
    if (range.trim() === '') throw new CtxpkgError('E_INVALID_RANGE', `empty version range in ${JSON.stringify(arg)}`);
    try {
      parseRange(range, { mode: 'write', savedIn: 'ctxpkg.json' });
    } catch (err) {
      // npm-only syntax (E_RANGE): install saves the range in ctxpkg.json, which takes the one
      // dialect packages use; the hint is the install command with the range rewritten.
      const e = err as CtxpkgError;
      if (e.code === 'E_INVALID_RANGE' && DIST_TAG.test(range)) throw distTagError(arg, name, range);
      const suggestion = e.code === 'E_RANGE' ? (e.details as { suggestion?: string } | undefined)?.suggestion : undefined;
      if (e.code !== 'E_RANGE') throw err;
      throw new CtxpkgError('E_RANGE', `${arg}: ${e.message}`, {
        hint:
          (suggestion !== undefined ? `run \`ctxpkg install '${name}@${suggestion}'\`; ` : '') +
          'ctxpkg.json takes one requirement per dependency: comparators joined by commas, e.g. "^1.2", ">=1.2.0, <2.0.0" or "*" (spec/format.md §17.2)',
        details: e.details,
      });
    }
  }
  return { kind: 'registry', name, range };
}

/**
 * Validate every declared dependency of ctxpkg.json (names scoped, ranges readable, `file:`
 * paths relative). An absolute `file:` path is `E_MANIFEST`: ctxpkg.lock records the origin, and
 * an absolute one breaks every other clone; the hint gives the path relative to `root` (the
 * project root) to write instead. Throws the name and range codes otherwise (a dist-tag such as
 * `"latest"` is `E_INVALID_RANGE` saying ctxpkg has none).
 */
export function checkDeclared(declared: Record<string, string>, root: string): void {
  for (const [name, range] of Object.entries(declared)) {
    if (range.startsWith('file:')) {
      parsePackageName(name);
      const path = range.slice('file:'.length);
      if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) {
        const rel = relative(root, resolve(root, path)).split('\\').join('/');
        throw new CtxpkgError('E_MANIFEST', `ctxpkg.json dependency ${JSON.stringify(name)}: ${JSON.stringify(range)} is an absolute path; ctxpkg.lock would record it, and it would not work in another clone`, {
          hint: `write it relative to the project root: ${JSON.stringify(name)}: ${JSON.stringify(`file:${rel}`)} (\`ctxpkg install <path>\` writes it so)`,
          details: { name, range, relative: `file:${rel}` },
        });
      }
      continue;
    }
    try {
      parsePackageName(name);
      parseRange(range, { mode: 'read' });
    } catch (err) {
      const e = err as CtxpkgError;
      if (e.code === 'E_INVALID_RANGE' && DIST_TAG.test(range)) throw distTagError(`ctxpkg.json dependency ${JSON.stringify(name)}`, name, range);
      throw new CtxpkgError(e.code, `ctxpkg.json dependency ${JSON.stringify(name)}: ${e.message}`, { hint: e.hint });
    }
  }
}

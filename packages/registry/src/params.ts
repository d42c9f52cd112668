/**
 * Path parameter checks (spec/registry.md "Names in URLs"; ADVERSARIAL HB-21, HB-22).
 *
 * The raw request path is checked before routing decisions use any parameter: encoded slashes
 * and backslashes (`%2F`, `%5C`), encoded dots (`%2E`), NUL and other control characters, literal
 * backslashes and dot segments are refused with 400 `E_INVALID_NAME`. Then the decoded namespace
 * and name must satisfy `parsePackageName` exactly (ASCII `[a-z0-9-]`, lengths, no extra `/`),
 * and a version must be strict SemVer (`validateVersion`, HB-03).
 */
import { CtxpkgError, parsePackageName, validateVersion } from '@ctxpkg/format';

const BAD_ENCODING = /%(?:2f|5c|2e|00|0[0-9a-f]|1[0-9a-f]|7f)/i;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f\\]/;
const DOT_SEGMENT = /(?:^|\/)\.{1,2}(?:\/|$)/;

/** The raw (still percent-encoded) path of a request URL, without query or fragment. */
export function rawPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start === -1) return '/';
  let end = url.length;
  const q = url.indexOf('?', start);
  const h = url.indexOf('#', start);
  if (q !== -1) end = q;
  if (h !== -1 && h < end) end = h;
  return url.slice(start, end);
}

/** Traversal or smuggling in the raw path → the `E_INVALID_NAME` (400) error to answer; else null. */
export function rawPathProblem(path: string): CtxpkgError | null {
  if (BAD_ENCODING.test(path) || CONTROL.test(path) || DOT_SEGMENT.test(path) || path.includes('//')) {
    return new CtxpkgError('E_INVALID_NAME', 'the request path contains an encoded slash, backslash, dot segment or control character', {
      hint: 'package names are @namespace/name with a-z, 0-9 and dashes; versions are SemVer',
    });
  }
  return null;
}

/** A validated `{ns}/{name}` pair from the URL. Throws `E_INVALID_NAME`. */
export interface PackageRef {
  namespace: string;
  name: string;
  /** `@namespace/name` */
  full: string;
}

/** Validate decoded `ns` and `name` URL parameters. Throws `E_INVALID_NAME` (400). */
export function packageRef(ns: string, name: string): PackageRef {
  const parsed = parsePackageName(`@${ns}/${name}`);
  if (parsed.namespace !== ns || parsed.name !== name) {
    throw new CtxpkgError('E_INVALID_NAME', `invalid package name @${ns}/${name}`);
  }
  return { namespace: ns, name, full: parsed.full };
}

/** Validate a decoded version URL parameter (strict SemVer, HB-03). Throws `E_INVALID_VERSION` (400). */
export function versionParam(v: string): string {
  validateVersion(v);
  return v;
}

/**
 * ADVERSARIAL HB-02 (caret and tilde below 1.0.0): one table checked at every layer —
 * `maxSatisfying` (versions.test.ts), the resolver (test/resolve-adversarial.test.ts) and
 * `ctxpkg install` against a live registry (test/adversarial/resolver.test.ts).
 */

/** The versions a package offers, ascending. */
export const HB02_VERSIONS: readonly string[] = ['0.0.3', '0.0.4', '0.2.3', '0.2.9', '0.3.0', '1.0.0'];

/** `[range, version it must pick from HB02_VERSIONS]`; `^0.0.0` (no match) is tested per layer. */
export const HB02_PICKS: ReadonlyArray<readonly [string, string]> = [
  ['^0.0.3', '0.0.3'],
  ['~0.0.3', '0.0.4'],
  ['^0.2.3', '0.2.9'],
  ['~0.2.3', '0.2.9'],
  ['^0.0', '0.0.4'],
  ['^0', '0.3.0'],
  ['0.x', '0.3.0'],
  ['^0.x', '0.3.0'],
];

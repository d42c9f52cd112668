import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forceOf, IMPERATIVE, SECURITY } from './order.js';

/** The rule of order key 3b as written: the two expressions over the first 2,000 code units. */
const byRule = (text: string): number => {
  const t = text.slice(0, 2000);
  return SECURITY.test(t) ? 2 : IMPERATIVE.test(t) ? 1 : 0;
};

const WORDS = [
  'secret', 'secrets', 'credential', 'password', 'passphrase', 'api', 'key', 'keys', 'private', 'access', 'token', 'personal', 'data', 'pii',
  'sanitise', 'sanitize', 'injection', 'xss', 'csrf', 'vulnerable', 'owasp', 'security', 'cve', 'never', 'always', 'must', "mustn't", 'mustn',
  'do', 'not', "don't", 'shall', 'under', 'no', 'circumstances', 'nevermore',
];
const GLUE = [' ', '_', '-', "'", '.', '\n', '1', '7', 'x', 'é', 'ſ', '\u212a'];

describe('forceOf', () => {
  it('is 2 for security words, 1 for hard imperatives, else 0 — anywhere in the first 2,000 code units', () => {
    expect(forceOf('Never commit API keys, credentials or personal data.')).toBe(2);
    expect(forceOf('Always collapse if statements.')).toBe(1);
    expect(forceOf('Never mind; store the password hash.')).toBe(2);
    expect(forceOf('Periodically run `uv pip list --outdated`.')).toBe(0);
    expect(forceOf('mustard and nevermore')).toBe(0);
    expect(forceOf('x'.repeat(1995) + ' never')).toBe(0);
    expect(forceOf('x'.repeat(1994) + ' never')).toBe(1);
  });

  it('agrees with the rule as written (words in any case, glue, the 2,000-unit cut)', () => {
    const word = fc.tuple(fc.constantFrom(...WORDS), fc.array(fc.boolean(), { maxLength: 14 })).map(([w, up]) => [...w].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));
    const piece = fc.oneof(word, fc.constantFrom(...GLUE), fc.string({ maxLength: 3 }));
    const pad = fc.constantFrom('', 'x'.repeat(1985), 'a b '.repeat(496));
    fc.assert(
      fc.property(pad, fc.array(piece, { maxLength: 12 }), (p, xs) => {
        const text = p + xs.join('');
        expect(forceOf(text)).toBe(byRule(text));
      }),
      { numRuns: 5000 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GATE_FLAGS, GATE_WORDS_SHIFT } from '../secret-gate.js';
import { surelyClean, surelyCleanWith } from '../secrets.js';
import { FORCE_WORDS, forceOf, forceOfVerdict, IMPERATIVE, SECURITY } from './order.js';

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

/** The alternatives of the two expressions, their fragments and near misses. */
const ALTS = [
  'secret', 'secrets', 'credential', 'password', 'passphrase', 'api', 'apikey', 'api key', 'api_key', 'api-keys', 'api.key', 'api  key', 'private key',
  'private_keys', 'privatekey', 'access token', 'access-tokens', 'accesstoken', 'personal data', 'personal  data', 'personal', 'pii', 'piis', 'pii_',
  'sanitise', 'sanitize', 'sanitiz', 'saniti', 'sanity', 'injection', 'inject', 'xss', 'xs', 'csrf', 'csr', 'vulnerab', 'vulnerable', 'vulner', 'owasp',
  'owas', 'security', 'secur', 'cve-1', 'cve-', 'cve-x', 'cve1', 'never', 'neve', 'always', 'alway', 'must', 'mus', "mustn't", 'mustn’t', 'do not',
  'do  not', 'do', 'not', "don't", 'don’t', 'dont', 'shall not', 'shall', 'under no circumstances', 'under no', 'circumstances', 'account', 'permission',
];
const cased = fc.tuple(fc.constantFrom(...ALTS), fc.array(fc.boolean(), { maxLength: 24 })).map(([w, up]) => [...w].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));
const glue = fc.constantFrom(' ', '  ', '_', '-', "'", '.', ',', '\n', '\t', '0', '9', 'a', 'Z', 'é', 'ſ', '\u212a', '\u00a0', '😀', '—', '\ud800', '中', '');
const pad = fc.constantFrom('', 'x', ' ', 'ab cd '.repeat(11), 'x'.repeat(1990), 'a b '.repeat(497), ' '.repeat(1995), 'q '.repeat(998), 'q'.repeat(1997), 'q '.repeat(8200), 'é '.repeat(996), '😀'.repeat(997));
const forceText = fc.tuple(pad, fc.array(fc.oneof(cased, glue, cased), { maxLength: 16 })).map(([p, xs]) => p + xs.join(''));

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
  it('agrees with the rule as written on texts built from its alternatives, their fragments, separators and cases', () => {
    fc.assert(
      fc.property(forceText, (text) => {
        expect(forceOf(text)).toBe(byRule(text));
      }),
      { numRuns: 20000 },
    );
  });

  it('agrees with the rule as written on every alternative cut by the 2,000-unit limit', () => {
    for (const w of ['secret', 'pii', 'xss', 'api key', 'cve-7', 'never', "mustn't", 'do not', 'under no circumstances', 'sanitiſe', 'sanitize']) {
      for (let k = 1985; k <= 2001; k++) {
        for (const text of [' '.repeat(k) + w, ' '.repeat(k) + w + 'x', ' '.repeat(k) + w.toUpperCase() + ' tail']) expect(forceOf(text), `${k} ${w}`).toBe(byRule(text));
      }
    }
  });
});

describe('FORCE_WORDS in the secret gate (the force of a screened node, node-facts.ts)', () => {
  const gate = surelyCleanWith(FORCE_WORDS);
  const check = (text: string): void => {
    const r = gate(text);
    expect(forceOfVerdict(r >>> GATE_WORDS_SHIFT), text).toBe(byRule(text));
    expect((r & GATE_FLAGS) === 0, text).toBe(surelyClean(text));
  };

  it('gives the force of the rule as written and the verdict of surelyClean, on texts built from the alternatives', () => {
    fc.assert(fc.property(forceText, check), { numRuns: 20000 });
  });

  it('… on texts mixing the words with secrets, assignments and token runs (the rare characters of the gate)', () => {
    const secretish = fc.constantFrom('password = "Xk29!aPqLm"', 'AKIAABCDEFGHIJKLMNOP', ':', '=', 'api_key: x', 'q8Zr2LmX9vTq4NcB7wYk3HsJ', 'sk-', '://', 'ghp_', 'x'.repeat(30), '.');
    fc.assert(
      fc.property(pad, fc.array(fc.oneof(cased, glue, secretish), { maxLength: 16 }), (p, xs) => check(p + xs.join(''))),
      { numRuns: 5000 },
    );
  });

  it('… on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), check), { numRuns: 5000 });
  });

  it('… on every alternative cut by the 2,000-unit limit', () => {
    for (const w of ['secret', 'pii', 'xss', 'api key', 'cve-7', 'never', "mustn't", 'do not', 'under no circumstances', 'sanitize']) {
      for (let k = 1985; k <= 2001; k++) for (const text of [' '.repeat(k) + w, ' '.repeat(k) + w + 'x', 'never '.repeat(k / 6) + w.toUpperCase() + ' tail', 'é' + ' '.repeat(k - 1) + w, '😀' + ' '.repeat(k - 2) + w + ' 😀']) check(text);
    }
  });
});

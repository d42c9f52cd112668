/**
 * Issue 11 item 2 — secret screening is linear in the text, for every rule.
 *
 * 1. The two hand-written scanners (secret_assignment, high_entropy) and the gate report an
 *    operation count (`secretScanWork`): for each rule's worst-case families it is at most
 *    8 characters visited per input character, at every size (so it scales linearly).
 * 2. They are the former regular expressions, checked differentially on random texts built from
 *    the characters those expressions care about (the expressions are the oracle, on small texts).
 * 3. Every expression rule gets its worst-case families (its literal hints densely repeated and
 *    followed by long runs of every separator class, behind a key-named assignment so every
 *    gated rule runs) at 32k characters; a super-linear rule shows here as a test timeout, and
 *    bench/secrets prints the times against an honest text of the same size.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isHighEntropyToken, scanSecrets, secretScanWork } from '@ctxpkg/format';
import { scanAssignments, scanTokenRuns, SECRET_KEY_NAMES, type Candidate } from '../../packages/format/src/secret-scanners.js';
import { DOC_EXAMPLES, looksLikeCredential } from '../../packages/format/src/secret-heuristics.js';

const SEPARATORS = ['-', '_', '.', ' ', '\t', '/', '+', '=', ':', '"', "'", 'a', 'A', '1', '\n', '@', ',', '~', '\\n'];

/** Worst-case families for one rule's hint: dense repeats and long runs of each separator. */
function families(hint: string, n: number): string[] {
  const out: string[] = [];
  for (const s of SEPARATORS) {
    out.push(hint + s.repeat(n));
    out.push((hint + s).repeat(Math.ceil(n / (hint.length + 1))));
    out.push(hint + (s + 'a').repeat(n / 2));
    out.push('password=x ' + (hint + s + s).repeat(Math.ceil(n / (hint.length + 2))));
  }
  return out.map((t) => t.slice(0, n + 64));
}

describe('issue 11.2: hand-written scanners — operation count', () => {
  const HEADS: Record<string, string[]> = {
    secret_assignment: ['key:', 'password=', 'api_key :=', 'token=>', '"secret": "', "auth_token='", 'x.pwd='],
    high_entropy: ['aB3dE5fG7hI9jK1lM3nO5pQ7', 'AAAA', '=', 'a1B2'],
  };
  for (const [rule, heads] of Object.entries(HEADS)) {
    it(`${rule}: at most 8 steps per character on every family, at every size`, () => {
      for (const n of [1_000, 8_000, 32_000]) {
        for (const h of heads) {
          for (const text of families(h, n)) {
            const work = secretScanWork(text);
            expect(work, `${rule} ${JSON.stringify(text.slice(0, 24))}… n=${text.length}`).toBeLessThanOrEqual(8 * text.length);
          }
        }
      }
    });
  }

  it('the count is exact enough to fail: a text with no gate hit costs one pass', () => {
    const text = 'plain prose without any credential-looking thing at all. '.repeat(100);
    expect(secretScanWork(text)).toBe(text.length);
  });
});

/** The former expressions, as the oracle of the scanners. */
const OLD_ASSIGNMENT = new RegExp(
  `(?<![A-Za-z0-9])[A-Za-z0-9_.-]*?(?:${SECRET_KEY_NAMES})["']?[ \\t]*(?::=|=>|=|:)[ \\t]*` + '(?:(["\'`])([^"\'`\\r\\n]{1,512}?)\\1|([^\\s"\'`,;)}\\]]{1,512}))',
  'dgi',
);
const OLD_HIGH_ENTROPY = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])/g;

function oracle(re: RegExp, text: string, groups: number[], accept: (v: string) => boolean): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    let value = m[0];
    let start = m.index;
    for (const g of groups) {
      const span = m.indices?.[g];
      if (span) {
        value = m[g] as string;
        start = span[0];
        break;
      }
    }
    if (value.length === 0 || DOC_EXAMPLES.has(value) || !accept(value)) continue;
    out.push([start, start + value.length]);
  }
  return out;
}

const spans = (scan: (t: string, r: number, o: Candidate[], w: { steps: number }) => void, text: string): Array<[number, number]> => {
  const out: Candidate[] = [];
  scan(text, 0, out, { steps: 0 });
  return out.map((c) => [c.start, c.end]);
};

describe('issue 11.2: the scanners are the former expressions', () => {
  const pieces = ['password', 'pwd', 'API_KEY', 'token', 'secret_key', 'x', 'my', ':', '=', ':=', '=>', ' ', '\t', '"', "'", '`', '_', '.', '-', '\n', ',', ';', ')', 'Tr0ub4dor&3x', 'hunter2hunter2', 'a3f9c2e1b4d5a6f7', 'aB3dE5fG7hI9jK1lM3nO5pQ7rS', '==', '+/', 'Zz9'];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 60 }).map((a) => a.join(''));

  it('secret_assignment', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(spans(scanAssignments, t)).toEqual(oracle(OLD_ASSIGNMENT, t, [2, 3], looksLikeCredential));
      }),
      { numRuns: 3000 },
    );
  });

  it('high_entropy', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(spans(scanTokenRuns, t)).toEqual(oracle(OLD_HIGH_ENTROPY, t, [], isHighEntropyToken));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('issue 11.2: every expression rule on its worst-case families', () => {
  const HINTS: Record<string, string[]> = {
    private_key: ['-----BEGIN ', '-----BEGIN RSA PRIVATE KEY-----', 'PRIVATE KEY'],
    aws_access_key_id: ['AKIA'],
    aws_secret_access_key: ['aws_secret_access_key=', 'AWS_SECRET_KEY :'],
    gcp_api_key: ['AIza'],
    gcp_oauth_token: ['ya29.'],
    azure_storage_key: ['AccountKey='],
    azure_client_secret: ['Q~', 'abc1Q~'],
    github_token: ['ghp_', 'github_pat_'],
    gitlab_token: ['glpat-'],
    slack_token: ['xoxb-'],
    slack_webhook: ['https://hooks.slack.com/services/'],
    npm_token: ['npm_', ':_authToken='],
    anthropic_api_key: ['sk-ant-ab12-'],
    openai_api_key: ['sk-', 'sk-proj-'],
    stripe_key: ['sk_live_', 'whsec_'],
    sendgrid_api_key: ['SG.'],
    huggingface_token: ['hf_'],
    basic_auth: ['Basic ', 'Basic'],
    jwt: ['eyJ', 'eyJhbGciOiJIUzI1NiJ9.eyJ'],
    url_credentials: ['://', 'https://user:', 'a://b:c'],
  };
  for (const [rule, hints] of Object.entries(HINTS)) {
    it(`${rule}: completes on 32k-character worst cases`, () => {
      for (const h of hints) for (const t of families(h, 32_000)) expect(Array.isArray(scanSecrets(t))).toBe(true);
    });
  }
});

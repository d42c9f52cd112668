import { describe, expect, it } from 'vitest';
import { isHighEntropyToken, redactSecrets, scanSecrets, secretKinds, shannonEntropy } from './secrets.js';

/** Deterministic pseudo-random token over an alphabet (xorshift), so tests need no fixtures. */
function token(len: number, seed: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'): string {
  let x = seed >>> 0 || 1;
  let s = '';
  while (s.length < len) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    s += alphabet[x % alphabet.length];
  }
  return s;
}

const PEM_BODY = Array.from({ length: 6 }, (_, i) => token(64, 100 + i, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')).join('\n');
const JWT_HEADER = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url');
const JWT_PAYLOAD = Buffer.from('{"sub":"1234567890","name":"x"}').toString('base64url');

/** [kind, text containing exactly one secret, the secret itself] */
const POSITIVE: Array<[string, string, string]> = [
  ['private_key', `key:\n-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\n-----END RSA PRIVATE KEY-----\n`, `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\n-----END RSA PRIVATE KEY-----`],
  ['private_key', `"private_key": "-----BEGIN PRIVATE KEY-----\\n${PEM_BODY.replace(/\n/g, '\\n')}\\n-----END PRIVATE KEY-----\\n"`, `-----BEGIN PRIVATE KEY-----\\n${PEM_BODY.replace(/\n/g, '\\n')}\\n-----END PRIVATE KEY-----`],
  ['aws_access_key_id', 'export AWS_ACCESS_KEY_ID=AKIA' + 'Q3EGRZ7NKV4WLD2P', 'AKIA' + 'Q3EGRZ7NKV4WLD2P'],
  ['aws_secret_access_key', 'aws_secret_access_key = ' + token(40, 7, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+'), token(40, 7, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+')],
  ['gcp_api_key', 'const k = "AIza' + token(35, 9) + '";', 'AIza' + token(35, 9)],
  ['gcp_oauth_token', 'Bearer ya29.' + token(60, 11), 'ya29.' + token(60, 11)],
  ['azure_storage_key', 'DefaultEndpointsProtocol=https;AccountName=x;AccountKey=' + token(86, 13) + '==;EndpointSuffix=core.windows.net', token(86, 13) + '=='],
  ['github_token', 'token ghp_' + token(36, 15) + ' here', 'ghp_' + token(36, 15)],
  ['github_token', 'github_pat_' + token(22, 16) + '_' + token(59, 17), 'github_pat_' + token(22, 16) + '_' + token(59, 17)],
  ['gitlab_token', 'GITLAB glpat-' + token(20, 19), 'glpat-' + token(20, 19)],
  ['slack_token', 'slack: xoxb-' + '123456789012-1234567890123-' + token(24, 21), 'xoxb-123456789012-1234567890123-' + token(24, 21)],
  ['slack_webhook', 'post to https://hooks.slack.com/services/T0000AAAA/B0000BBBB/' + token(24, 22), 'https://hooks.slack.com/services/T0000AAAA/B0000BBBB/' + token(24, 22)],
  ['npm_token', '//registry.npmjs.org/:_authToken=npm_' + token(36, 23), 'npm_' + token(36, 23)],
  ['openai_api_key', 'OPENAI says sk-proj-' + token(48, 25) + ' ok', 'sk-proj-' + token(48, 25)],
  ['anthropic_api_key', 'key sk-ant-api03-' + token(93, 27) + 'AA', 'sk-ant-api03-' + token(93, 27) + 'AA'],
  ['stripe_key', 'stripe sk_live_' + token(24, 29), 'sk_live_' + token(24, 29)],
  ['jwt', `Authorization: Bearer ${JWT_HEADER}.${JWT_PAYLOAD}.${token(43, 31)}`, `${JWT_HEADER}.${JWT_PAYLOAD}.${token(43, 31)}`],
  ['url_credentials', 'DATABASE_URL=postgres://app:S3cr3tPassw0rd@db.internal:5432/app', 'S3cr3tPassw0rd'],
  ['secret_assignment', 'db:\n  password: "Tr0ub4dor&3x"\n', 'Tr0ub4dor&3x'],
  ['secret_assignment', 'DB_PASSWORD=hunter2hunter2', 'hunter2hunter2'],
  ['secret_assignment', '{"apiKey": "a3f9c2e1b4d5a6f7e8d9c0b1"}', 'a3f9c2e1b4d5a6f7e8d9c0b1'],
  ['basic_auth', 'curl -H "Authorization: Basic ' + Buffer.from('deploy:Zq8vLx2mPw').toString('base64') + '"', Buffer.from('deploy:Zq8vLx2mPw').toString('base64')],
  ['high_entropy', 'use this: ' + token(40, 33) + ' to connect', token(40, 33)],
];

describe('scanSecrets: provider formats and generic rules', () => {
  for (const [kind, text, secret] of POSITIVE) {
    it(`finds ${kind} and reports only its position`, () => {
      const f = scanSecrets(text);
      expect(f.map((x) => x.kind)).toEqual([kind]);
      const only = f[0]!;
      expect(text.slice(only.offset, only.offset + only.length)).toBe(secret);
      expect(JSON.stringify(f)).not.toContain(secret.slice(4, 20));
    });
  }

  it('reports 1-based line and column', () => {
    const text = 'first line\n  second ghp_' + token(36, 41) + '\n';
    const [f] = scanSecrets(text);
    expect(f).toMatchObject({ kind: 'github_token', line: 2, column: 10, length: 40 });
  });

  it('prefers the specific kind over the generic assignment', () => {
    const text = 'OPENAI_API_KEY="sk-proj-' + token(40, 43) + '"';
    expect(scanSecrets(text).map((f) => f.kind)).toEqual(['openai_api_key']);
  });

  it('finds several secrets in order', () => {
    const text = `a ghp_${token(36, 45)} b\nAKIA${'Z7NKV4WLD2PQ3EGR'} c`;
    expect(scanSecrets(text).map((f) => [f.kind, f.line])).toEqual([
      ['github_token', 1],
      ['aws_access_key_id', 2],
    ]);
  });
});

describe('scanSecrets: no false positives on ordinary text', () => {
  const NEGATIVE = [
    'The password must be at least 12 characters long.',
    'Password: use a strong one',
    'password: string;',
    'const password = process.env.DB_PASSWORD;',
    'password = "${DB_PASSWORD}"',
    'api_key: <your-api-key>',
    'token: {{ secrets.NPM_TOKEN }}',
    'secret = config.secrets.signing',
    'max_tokens: 4096',
    'export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE',
    'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    'commit 020f0e2fb8423836dec396b626ef6738be14e1e3',
    'id 550e8400-e29b-41d4-a716-446655440000',
    'call getElementsByTagNameNSForWindow3() and ContextPackCompilerTestHelper2',
    'see packages/format/src/secretsScannerHelper2.ts',
    'postgres://user:pass@localhost/db',
    'postgres://postgres:postgres@localhost/db',
    '-----BEGIN RSA PRIVATE KEY----- starts the file',
    'run `npm install` then set sk-learn-compatible-estimator-interface',
    'password = "[REDACTED:secret_assignment]"',
    '"integrity": "sha512-ulkCYfFbYj01ie1MDOyxv2F6SpRN1TOj7fQxbP07D6HmeR+gr2JLSmINKjga2emB+b1L2KGrF"',
    'blob: ' + Buffer.from('# Review checklist\n- tests pass\n- docs updated\n').toString('base64'),
    'Basic authentication is described in RFC 7617',
  ];
  for (const text of NEGATIVE) {
    it(JSON.stringify(text), () => {
      expect(scanSecrets(text)).toEqual([]);
    });
  }
});

describe('redactSecrets', () => {
  it('replaces each secret with its kind and is idempotent', () => {
    const text = `token ghp_${token(36, 51)} and password="Xy7!abc123"`;
    const r = redactSecrets(text);
    expect(r.text).toBe('token [REDACTED:github_token] and password="[REDACTED:secret_assignment]"');
    expect(secretKinds(r.findings)).toEqual(['github_token', 'secret_assignment']);
    expect(redactSecrets(r.text)).toEqual({ text: r.text, findings: [] });
  });

  it('is idempotent for unquoted assignments (a redaction marker is never re-flagged)', () => {
    for (const text of ['API_KEY=sk9Hq2LmXv7RtY4pWz8NcB3dKf6Gj1Ae', 'password: hunter2Hunter2xyz!', 'export TOKEN=abcD3fGhijK1mnoPqr5tuvWxyz0123 and more']) {
      const r = redactSecrets(text);
      expect(r.findings.map((f) => f.kind)).toEqual(['secret_assignment']);
      expect(r.text).toContain('[REDACTED:secret_assignment]');
      expect(scanSecrets(r.text)).toEqual([]);
    }
  });

  it('returns the text unchanged when clean', () => {
    expect(redactSecrets('nothing to see')).toEqual({ text: 'nothing to see', findings: [] });
  });
});

describe('entropy rule', () => {
  it('computes Shannon entropy in bits per character', () => {
    expect(shannonEntropy('')).toBe(0);
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });

  it('flags most random base62 tokens of 32 characters and no identifiers', () => {
    let hits = 0;
    for (let i = 1; i <= 500; i++) if (isHighEntropyToken(token(32, i * 7919))) hits++;
    expect(hits).toBeGreaterThan(480);
    for (const id of ['ThisIsAVeryLongIdentifierName123', 'useCallbackWithDependencies42Fn', 'MAX_CONTEXT_WINDOW_TOKENS_2048']) {
      expect(isHighEntropyToken(id)).toBe(false);
    }
  });
});

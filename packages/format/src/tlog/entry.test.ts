import { describe, expect, it } from 'vitest';
import { bytesToHex } from '../hex.js';
import {
  commitmentNonce,
  commitmentOf,
  encodeLogEntry,
  formatLogEntry,
  logEntryFor,
  openCommitment,
  parseLogEntry,
  statementNamespace,
  type LogStatement,
} from './entry.js';
import { signerStatusAt, keysetAt } from './keyset.js';
import { createHmac } from 'node:crypto';

const A = 'a'.repeat(64);
const K = 'b'.repeat(64);

describe('log entries', () => {
  const statements: LogStatement[] = [
    { kind: 'publish', package: '@acme/kb', version: '1.0.0-rc.1+build.5', artifact_sha256: A, signer: K },
    { kind: 'yank', package: '@acme/kb', version: '1.0.0' },
    { kind: 'unyank', package: '@acme/kb', version: '1.0.0' },
    { kind: 'key-add', namespace: '@acme', key: K },
    { kind: 'key-revoke', namespace: '@acme', key: K },
    { kind: 'visibility', package: '@acme/kb', visibility: 'private' },
  ];
  it('writes two ASCII lines and parses them back exactly', () => {
    expect(formatLogEntry(statements[0]!)).toBe(`ctxpkg-log v1\npublish @acme/kb 1.0.0-rc.1+build.5 ${A} ${K}\n`);
    for (const s of statements) {
      expect(parseLogEntry(encodeLogEntry(s))).toEqual(s);
      expect(statementNamespace(s)).toBe('@acme');
    }
  });
  it('refuses anything but the canonical form', () => {
    for (const bad of [
      `ctxpkg-log v1\npublish @acme/kb 1.0.0 ${A}\n`,
      `ctxpkg-log v1\npublish @acme/kb  1.0.0 ${A} ${K}\n`,
      `ctxpkg-log v1\npublish @acme/kb 1.0.0 ${A.toUpperCase()} ${K}\n`,
      `ctxpkg-log v1\npublish @Acme/kb 1.0.0 ${A} ${K}\n`,
      `ctxpkg-log v1\npublish @acme/kb 01.0.0 ${A} ${K}\n`,
      `ctxpkg-log v1\nyank @acme/kb 1.0.0`,
      `ctxpkg-log v2\nyank @acme/kb 1.0.0\n`,
      `ctxpkg-log v1\nyank @acme/kb 1.0.0\n\n`,
      `ctxpkg-log v1\ndelete @acme/kb 1.0.0\n`,
      `ctxpkg-log v1\nkey-add acme ${K}\n`,
      `ctxpkg-log v1\nvisibility @acme/kb Private\n`,
      `ctxpkg-log v1\ncommitment ${A.slice(1)}\n`,
    ]) {
      expect(() => parseLogEntry(bad), JSON.stringify(bad)).toThrow();
    }
  });
});

describe('commitments for private packages', () => {
  const secret = new Uint8Array(32).fill(0x5a);
  const s: LogStatement = { kind: 'publish', package: '@acme/secret-plans', version: '1.0.0', artifact_sha256: A, signer: K };
  it('hides the statement: the logged entry names neither package nor namespace', () => {
    const { entry, opening } = logEntryFor(s, 7, secret);
    expect(entry).toMatch(/^ctxpkg-log v1\ncommitment [0-9a-f]{64}\n$/);
    expect(entry).not.toContain('secret-plans');
    expect(entry).not.toContain('acme');
    expect(opening!.entry).toBe(formatLogEntry(s));
    expect(openCommitment(parseLogEntry(entry), opening!)).toEqual(s);
  });
  it('is HMAC-SHA256 as specified (checked with node:crypto)', () => {
    const clear = formatLogEntry(s);
    const nonce = createHmac('sha256', secret).update(`ctxpkg-log-nonce v1\n7\n${clear}`).digest('hex');
    expect(commitmentNonce(secret, 7, clear)).toBe(nonce);
    expect(commitmentOf(clear, nonce)).toBe(createHmac('sha256', Buffer.from(nonce, 'hex')).update(clear).digest('hex'));
  });
  it('the same statement at two indexes gives unrelated commitments', () => {
    expect(logEntryFor(s, 1, secret).entry).not.toBe(logEntryFor(s, 2, secret).entry);
  });
  it('refuses an opening that does not match', () => {
    const { entry, opening } = logEntryFor(s, 7, secret);
    const logged = parseLogEntry(entry);
    const other = formatLogEntry({ ...s, artifact_sha256: 'c'.repeat(64) });
    expect(() => openCommitment(logged, { entry: other, nonce: opening!.nonce })).toThrow(expect.objectContaining({ code: 'E_LOG_PROOF' }));
    expect(() => openCommitment(logged, { entry: opening!.entry, nonce: bytesToHex(new Uint8Array(32)) })).toThrow(/does not match/);
    expect(() => openCommitment(parseLogEntry(formatLogEntry(s)), opening!)).toThrow(/not a commitment/);
  });
});

describe('logged keysets', () => {
  const k1 = '1'.repeat(64);
  const k2 = '2'.repeat(64);
  const k3 = '3'.repeat(64);
  const events = [
    { index: 0, kind: 'key-add' as const, key: k1 },
    { index: 4, kind: 'key-add' as const, key: k2 },
    { index: 9, kind: 'key-revoke' as const, key: k1 },
  ];
  it('accepts a key added before the publish and not revoked since', () => {
    expect(signerStatusAt(events, k1, 5)).toEqual({ ok: true, key: k1, addedAt: 0 });
    expect(signerStatusAt(events, k2, 5)).toEqual({ ok: true, key: k2, addedAt: 4 });
    expect(signerStatusAt(events, k1, 20)).toEqual({ ok: false, key: k1, reason: 'revoked', addedAt: 0, revokedAt: 9 });
    expect(signerStatusAt(events, k2, 4)).toEqual({ ok: false, key: k2, reason: 'unlogged' });
    expect(signerStatusAt(events, k3, 20)).toEqual({ ok: false, key: k3, reason: 'unlogged' });
    expect(keysetAt(events, 5)).toEqual([k1, k2]);
    expect(keysetAt(events, 10)).toEqual([k2]);
  });
});

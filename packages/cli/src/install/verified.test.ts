import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sealKey } from './seal.js';
import { mergedGraphSealed, readVerified, trustedFacts, writeVerified, type ArtifactFacts, type VerifiedRecord } from './verified.js';

const SHA = 'a'.repeat(64);
const facts: ArtifactFacts = {
  name: '@acme/kb', version: '1.0.0', registry: 'http://r.example/api', integrity_sha256: 'b'.repeat(64), signer_public_key: 'c'.repeat(64),
  content_hash: 'd'.repeat(64), dependencies: [{ name: '@acme/base', version_req: '^1', optional: false }], yanked: true,
};
const setup = () => {
  const root = mkdtempSync(join(tmpdir(), 'ctxpkg-verified-'));
  mkdirSync(join(root, '.ctxpkg', 'graph'), { recursive: true });
  const key = sealKey({ env: { CTXPKG_HOME: join(root, '.home') }, homeDir: root }, true) as Buffer;
  const other = sealKey({ env: { CTXPKG_HOME: join(root, '.other') }, homeDir: root }, true) as Buffer;
  return { root, key, other };
};

describe('the sealed record of verified artifacts', () => {
  it('round-trips for the same key; is empty for another key (a committed record) or no key', () => {
    const { root, key, other } = setup();
    const rec: VerifiedRecord = { artifacts: new Map([[SHA, facts]]), merged: { inputs: ['@acme/kb@1.0.0 ' + SHA], sha256: 'e'.repeat(64) } };
    writeVerified(root, key, rec);
    expect(readVerified(root, key)).toEqual(rec);
    expect(readVerified(root, other).artifacts.size).toBe(0);
    expect(readVerified(root, undefined).artifacts.size).toBe(0);
  });

  it('vouches only for the same name, version, equivalent registry and pinned signer, and never an unsigned one under the signature policy', () => {
    const rec: VerifiedRecord = { artifacts: new Map([[SHA, facts]]) };
    const want = { name: '@acme/kb', version: '1.0.0', registry: 'http://R.EXAMPLE', requireSignature: true };
    expect(trustedFacts(rec, SHA, want)).toBe(facts);
    expect(trustedFacts(rec, SHA, { ...want, signer: 'c'.repeat(64) })).toBe(facts);
    expect(trustedFacts(rec, SHA, { ...want, signer: 'f'.repeat(64) })).toBeUndefined();
    expect(trustedFacts(rec, SHA, { ...want, name: '@acme/other' })).toBeUndefined();
    expect(trustedFacts(rec, SHA, { ...want, version: '1.0.1' })).toBeUndefined();
    expect(trustedFacts(rec, SHA, { ...want, registry: 'http://evil.example/api' })).toBeUndefined();
    expect(trustedFacts(rec, 'f'.repeat(64), want)).toBeUndefined();
    const unsigned: VerifiedRecord = { artifacts: new Map([[SHA, { ...facts, signer_public_key: '' }]]) };
    expect(trustedFacts(unsigned, SHA, want)).toBeUndefined();
    expect(trustedFacts(unsigned, SHA, { ...want, requireSignature: false })).toBeDefined();
  });

  it('mergedGraphSealed: only the exact merged.json text the record binds', () => {
    const { root, key, other } = setup();
    const text = '{"format":"ctxpkg-merged-v1"}\n';
    writeFileSync(join(root, '.ctxpkg', 'graph', 'merged.json'), text);
    writeVerified(root, key, { artifacts: new Map(), merged: { inputs: [], sha256: createHash('sha256').update(text).digest('hex') } });
    expect(mergedGraphSealed(root, key)).toBe(true);
    expect(mergedGraphSealed(root, other)).toBe(false);
    writeFileSync(join(root, '.ctxpkg', 'graph', 'merged.json'), text.replace('v1', 'v1 '));
    expect(mergedGraphSealed(root, key)).toBe(false);
  });
});

import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSealed, sealKey, sealKeyPath, sealText } from './seal.js';

const home = (): { env: Record<string, string>; homeDir: string } => {
  const d = mkdtempSync(join(tmpdir(), 'ctxpkg-seal-'));
  return { env: { CTXPKG_HOME: join(d, 'user') }, homeDir: d };
};

describe('sealing derived data to the user', () => {
  it('creates one 0600 key on first use and returns the same key afterwards; without create, none', () => {
    const h = home();
    expect(sealKey(h, false)).toBeUndefined();
    const k = sealKey(h, true) as Buffer;
    expect(k.length).toBe(32);
    expect(sealKey(h, true)?.equals(k)).toBe(true);
    expect(sealKey(h, false)?.equals(k)).toBe(true);
    expect(statSync(sealKeyPath(h)).mode & 0o777).toBe(0o600);
    expect(readFileSync(sealKeyPath(h), 'utf8')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a malformed key file is no key (never a predictable one)', () => {
    const h = home();
    sealKey(h, true);
    writeFileSync(sealKeyPath(h), 'not hex');
    expect(sealKey(h, false)).toBeUndefined();
  });

  it('opens only with the same key and kind, and only the exact body', () => {
    const a = sealKey(home(), true) as Buffer;
    const b = sealKey(home(), true) as Buffer;
    const text = sealText(a, 'verified-artifacts', '{"x":1}');
    expect(openSealed(a, 'verified-artifacts', text)).toBe('{"x":1}');
    expect(openSealed(b, 'verified-artifacts', text)).toBeUndefined(); // another user (a committed file)
    expect(openSealed(a, 'install-state', text)).toBeUndefined(); // another use
    expect(openSealed(undefined, 'verified-artifacts', text)).toBeUndefined();
    const o = JSON.parse(text);
    expect(openSealed(a, 'verified-artifacts', JSON.stringify({ ...o, body: '{"x":2}' }))).toBeUndefined();
    expect(openSealed(a, 'verified-artifacts', JSON.stringify({ ...o, mac: 'zz' }))).toBeUndefined();
    expect(openSealed(a, 'verified-artifacts', 'garbage')).toBeUndefined();
    expect(openSealed(a, 'verified-artifacts', undefined)).toBeUndefined();
  });
});

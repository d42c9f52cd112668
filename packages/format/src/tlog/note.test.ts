import { createHash, createPrivateKey, sign as nodeSign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeCanonicalBase64 } from '../documents.js';
import { ed25519PublicKey } from '../ed25519.js';
import {
  SIG_COSIGNATURE_V1,
  SIG_ED25519,
  cosignatureMessage,
  formatVerifierKey,
  noteKeyId,
  noteVerifier,
  openNote,
  parseNote,
  parseVerifierKey,
  signNote,
  signatureLine,
  verifierOf,
} from './note.js';

// c2sp.org/signed-note "Example": a verifier key and the note it verifies.
const C2SP_VKEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
const C2SP_NOTE =
  'This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';

// golang.org/x/mod/sumdb/note test keys: a signer key (its base64 is 0x01 ‖ 32-byte seed), its
// verifier key, a second verifier key, and the exact note the signer produces for TEXT.
const PETER_SEED = decodeCanonicalBase64('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz')!.subarray(1);
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const ENOCH_VKEY = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG = '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const ENOCH_SIG = '— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';

describe('verifier keys and key IDs', () => {
  it('parses the spec and Go vectors, and recomputes the key IDs independently', () => {
    const v = parseVerifierKey(C2SP_VKEY);
    expect(v).toMatchObject({ name: 'example.com/foo', keyId: 0x530d903a, type: SIG_ED25519 });
    expect(formatVerifierKey(v)).toBe(C2SP_VKEY);
    const p = parseVerifierKey(PETER_VKEY);
    expect(p.keyId).toBe(0xc74f20a3);
    expect(p.publicKey).toEqual(ed25519PublicKey(PETER_SEED));
    const ref = createHash('sha256').update(Buffer.concat([Buffer.from('PeterNeumann\n'), Buffer.from([1]), Buffer.from(p.publicKey)])).digest();
    expect(noteKeyId('PeterNeumann', SIG_ED25519, p.publicKey)).toBe(ref.readUInt32BE(0));
  });
  it('reads a key whose base64 contains "+" (only the first two "+" separate fields)', () => {
    // Find a seed whose vkey has a "+" in its base64 part.
    for (let b = 0; b < 256; b++) {
      const v = verifierOf({ name: 'k.example/x', type: SIG_ED25519, seed: new Uint8Array(32).fill(b) });
      const text = formatVerifierKey(v);
      if (text.split('+').length > 3) {
        expect(parseVerifierKey(text).publicKey).toEqual(v.publicKey);
        return;
      }
    }
    throw new Error('no seed gave a "+" in 256 tries');
  });
  it('refuses every mangled verifier key', () => {
    const bad = [
      PETER_VKEY.slice(1),
      PETER_VKEY.slice(0, -1),
      PETER_VKEY.replace('c74f20a3', 'c74f20a4'),
      PETER_VKEY.replace('c74f20a3', 'C74F20A3'),
      'PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==',
      'PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
      'Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
      '+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
      PETER_VKEY + '+x',
    ];
    for (const b of bad) expect(() => parseVerifierKey(b), b).toThrow(expect.objectContaining({ code: 'E_NOTE' }));
  });
});

describe('signing and opening notes', () => {
  it('signs byte-for-byte like the Go reference', () => {
    expect(signNote(TEXT, [{ name: 'PeterNeumann', type: SIG_ED25519, seed: PETER_SEED }])).toBe(`${TEXT}\n${PETER_SIG}`);
  });
  it('verifies the C2SP example', async () => {
    const n = await openNote(C2SP_NOTE, [parseVerifierKey(C2SP_VKEY)]);
    expect(n.text).toBe('This is an example message.\n');
    expect(n.verified).toHaveLength(1);
  });
  it('ignores unknown keys, verifies known ones, and needs at least one', async () => {
    const peter = parseVerifierKey(PETER_VKEY);
    const enoch = parseVerifierKey(ENOCH_VKEY);
    const one = await openNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`, [peter]);
    expect(one.verified.map((s) => s.verifier.name)).toEqual(['PeterNeumann']);
    expect(one.unknown).toEqual([ENOCH_SIG.slice(0, -1)]);
    const two = await openNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`, [peter, enoch]);
    expect(two.verified).toHaveLength(2);
    await expect(openNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`, [])).rejects.toMatchObject({ code: 'E_SIGNATURE_INVALID' });
    // Same name, other ID (or other name, same ID): unknown, so ignored — and then nothing verified.
    const misnamed = PETER_SIG.replace('PeterNeumann', 'CarmenSandiego');
    await expect(openNote(`${TEXT}\n${misnamed}`, [peter])).rejects.toThrow(/not signed by any known key/);
  });
  it('rejects the whole note when a known key signature fails', async () => {
    const peter = parseVerifierKey(PETER_VKEY);
    const broken = PETER_SIG.slice(0, 60) + 'ABCD' + PETER_SIG.slice(64);
    await expect(openNote(`${TEXT}\n${broken}`, [peter])).rejects.toMatchObject({ code: 'E_SIGNATURE_INVALID' });
    await expect(openNote(`${TEXT.replace('answer', 'Answer')}\n${PETER_SIG}`, [peter])).rejects.toMatchObject({ code: 'E_SIGNATURE_INVALID' });
  });
  it('refuses malformed notes with E_NOTE', () => {
    const bad = [
      TEXT,
      TEXT + '\n',
      TEXT + '\n' + PETER_SIG.slice(0, -1),
      '\x01' + TEXT + '\n' + PETER_SIG,
      TEXT + '\n' + '— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n',
      TEXT + '\n' + PETER_SIG + 'Unexpected line.\n',
      TEXT + '\n' + PETER_SIG.repeat(101),
      TEXT + '\n' + '— PeterNeumann AAAA\n',
      TEXT + '\n' + '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM\n',
    ];
    for (const b of bad) expect(() => parseNote(b), JSON.stringify(b.slice(-40))).toThrow(expect.objectContaining({ code: 'E_NOTE' }));
    expect(() => parseNote(new Uint8Array([0xff, 0x0a, 0x0a]))).toThrow(/UTF-8/);
  });
});

describe('cosignatures (c2sp.org/tlog-cosignature, Ed25519 v1)', () => {
  const seed = new Uint8Array(32).fill(7);
  const w = { name: 'witness.example/w1', type: SIG_COSIGNATURE_V1, seed };
  const cp = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
  it('signs "cosignature/v1\\ntime T\\n" + the checkpoint, with the timestamp before the signature', () => {
    expect(new TextDecoder().decode(cosignatureMessage(cp, 1679315147))).toBe(`cosignature/v1\ntime 1679315147\n${cp}`);
    const line = signatureLine(cp, w, 1679315147);
    const bytes = decodeCanonicalBase64(line.split(' ')[2]!)!;
    expect(bytes.length).toBe(4 + 8 + 64);
    const v = verifierOf(w);
    expect(Buffer.from(bytes.subarray(0, 4)).readUInt32BE(0)).toBe(v.keyId);
    expect(Buffer.from(bytes.subarray(4, 12)).readBigUInt64BE(0)).toBe(1679315147n);
    // Independent check with node:crypto: the same deterministic Ed25519 signature.
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seed)]);
    const ref = nodeSign(null, Buffer.from(`cosignature/v1\ntime 1679315147\n${cp}`), createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }));
    expect(Buffer.from(bytes.subarray(12)).equals(ref)).toBe(true);
    // The key ID uses type byte 0x04.
    const ref04 = createHash('sha256').update(Buffer.concat([Buffer.from('witness.example/w1\n'), Buffer.from([4]), Buffer.from(v.publicKey)])).digest();
    expect(v.keyId).toBe(ref04.readUInt32BE(0));
  });
  it('verifies and reports the timestamp; a changed timestamp fails', async () => {
    const v = verifierOf(w);
    const note = `${cp}\n${signatureLine(cp, w, 1700000000)}\n`;
    const n = await openNote(note, [v]);
    expect(n.verified[0]!.timestamp).toBe(1700000000);
    const b = decodeCanonicalBase64(note.trim().split(' ').pop()!)!;
    b[11]! ^= 1;
    const forged = `${cp}\n— witness.example/w1 ${Buffer.from(b).toString('base64')}\n`;
    await expect(openNote(forged, [v])).rejects.toMatchObject({ code: 'E_SIGNATURE_INVALID' });
  });
  it('a 0x01 verifier of the same key does not accept a cosignature line (different key ID)', async () => {
    const note = `${cp}\n${signatureLine(cp, w, 1)}\n`;
    await expect(openNote(note, [noteVerifier(w.name, SIG_ED25519, ed25519PublicKey(seed))])).rejects.toThrow(/not signed by any known key/);
  });
});

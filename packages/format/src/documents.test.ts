import { describe, expect, it } from 'vitest';
import { encodeZstdFrame } from './archive/zstd.js';
import type { DocumentBlob, PackageContent } from './content.js';
import { CtxpkgError } from './errors.js';
import { decodeCanonicalBase64, documentIssues, documentPathKey, documentPathProblem, MAX_DOCUMENT_BYTES } from './documents.js';
import { sha256Hex } from './hash.js';
import { readPackage } from './package.js';
import { buildPackage } from './package-write.js';
import { bytes, craftBundle } from './__tests__/fixtures.js';

// FORMAT-FACTS §11.2 "Skills blob": libzstd level-3 frame without content size or checksum.
const REVIEW_BODY = 'KLUv/QBY2QAAIyBSZXZpZXcgY2hlY2tsaXN0Ci0gdGVzdHMK';
const REVIEW_SHA = 'c46cfcccdb34cab549942f3e7c07b65741e5d5fd876e267131f16e515fedbd06';

function b64(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s);
}

function doc(path: string, text: string | Uint8Array = `# ${path}\n`): DocumentBlob {
  const plain = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  return { path, sha256: sha256Hex(plain), encoding: 'zstd+base64', body: b64(encodeZstdFrame(plain)) };
}

const codes = (files: DocumentBlob[]) => documentIssues({ files }).issues.map((i) => i.code);

describe('skills documents', () => {
  it('decodes the reference skills blob (libzstd frame) and checks its plaintext hash', () => {
    const r = documentIssues({ files: [{ path: 'skills/review.md', sha256: REVIEW_SHA, encoding: 'zstd+base64', body: REVIEW_BODY }] });
    expect(r.issues).toEqual([]);
    expect(new TextDecoder().decode(r.files.get('skills/review.md'))).toBe('# Review checklist\n- tests\n');
  });

  it('accepts a hash in uppercase (the reference compares case-insensitively) and a body with surrounding whitespace', () => {
    expect(codes([{ path: 'a.md', sha256: REVIEW_SHA.toUpperCase(), encoding: 'zstd+base64', body: `\n ${REVIEW_BODY} \n` }])).toEqual([]);
  });

  it('HB-25: refuses every unsafe path', () => {
    for (const p of ['skills/../../evil.md', '/etc/evil.md', 'skills\\evil.md', 'C:evil.md', 'skills//a.md', 'skills/./a.md', 'skills/..a.md', 'skills/a\u0007.md', 'a/'.repeat(256) + 'b', '', 'skills/a\u0085.md']) {
      expect(codes([doc(p)]), JSON.stringify(p)).toEqual(['E_UNSAFE_DOCUMENT_PATH']);
    }
    expect(documentPathProblem('x'.repeat(512))).toBeUndefined();
    expect(documentPathProblem('x'.repeat(513))).toMatch(/512/);
    expect(documentPathProblem('é'.repeat(257))).toMatch(/512 bytes/);
  });

  it('HB-25: refuses duplicates, and (stricter than the reference) case and NFC collisions', () => {
    expect(codes([doc('skills/a.md'), doc('skills/a.md')])).toEqual(['E_DUPLICATE_DOCUMENT']);
    expect(codes([doc('skills/A.md'), doc('skills/a.md')])).toEqual(['E_DUPLICATE_DOCUMENT']);
    expect(codes([doc('skills/caf\u00e9.md'), doc('skills/cafe\u0301.md')])).toEqual(['E_DUPLICATE_DOCUMENT']);
  });

  it('HB-25: refuses 257 files and a file of 1 MiB + 1 byte; accepts exactly 1 MiB', () => {
    const many = Array.from({ length: 257 }, (_, i) => doc(`s/${i}.md`, 'x'));
    expect(codes(many)).toEqual(['E_TOO_LARGE']);
    expect(codes(many.slice(0, 256))).toEqual([]);
    expect(codes([doc('big.md', new Uint8Array(MAX_DOCUMENT_BYTES + 1))])).toEqual(['E_TOO_LARGE']);
    expect(codes([doc('big.md', new Uint8Array(MAX_DOCUMENT_BYTES))])).toEqual([]);
  });

  it('refuses more than 8 MiB decoded in total', () => {
    const files = Array.from({ length: 9 }, (_, i) => doc(`s/${i}.bin`, new Uint8Array(MAX_DOCUMENT_BYTES).fill(i)));
    expect(codes(files)).toEqual(['E_TOO_LARGE']);
  });

  it('refuses swapped bodies (hash mismatch), other encodings, bad base64 and bad frames', () => {
    const a = doc('a.md', 'A');
    const b = doc('b.md', 'B');
    expect(codes([{ ...a, body: b.body }])).toEqual(['E_INTEGRITY']);
    expect(codes([{ ...a, encoding: 'gzip+base64' }])).toEqual(['E_CONTENT']);
    expect(codes([{ ...a, body: a.body.replace(/=+$/, '') }])).toEqual(['E_CONTENT']);
    expect(codes([{ ...a, body: b64(new TextEncoder().encode('not zstd')) }])).toEqual(['E_CONTENT']);
    expect(codes([{ ...a, sha256: 'zz' }])).toEqual(['E_CONTENT']);
    expect(codes([])).toEqual(['E_CONTENT']);
  });

  it('canonical base64 only', () => {
    expect(decodeCanonicalBase64('QQ==')).toEqual(new Uint8Array([65]));
    expect(decodeCanonicalBase64('QR==')).toBeUndefined(); // non-zero padding bits
    expect(decodeCanonicalBase64('QQ')).toBeUndefined();
    expect(decodeCanonicalBase64('Q Q==')).toBeUndefined();
    expect(decodeCanonicalBase64('QUJD')).toEqual(new Uint8Array([65, 66, 67]));
  });

  it('writes and reads a kind=skills package; a skills package with an addon payload is refused', async () => {
    const content: PackageContent = { documents: { files: [doc('skills/review.md', '# Review checklist\n- tests\n')] } };
    const built = buildPackage({ manifest: { name: '@tt/s', version: '1.2.3', kind: 'skills', created_at: '2026-01-02T03:04:05Z' }, content });
    expect(built.manifest.schema_version).toBe(2);
    expect(built.text).toContain('"kind": "skills"');
    const pkg = await readPackage(built.bytes);
    expect(pkg.manifest.kind).toBe('skills');
    const bad = { ...content, addon: { manifest_toml: '[addon]' } };
    expect(() => buildPackage({ manifest: { name: '@tt/s', version: '1.2.3', kind: 'skills', created_at: '2026-01-02T03:04:05Z' }, content: bad })).toThrow(CtxpkgError);
  });

  it('HB-25 at package level: an unsafe path in a re-signed package is refused', async () => {
    const files = [doc('skills/../../evil.md')];
    const head = '"schema_version":2,"kind":"skills","name":"@tt/s","version":"1.2.3","description":"","created_at":"2026-01-02T03:04:05Z","layers":[]';
    const text = craftBundle({ name: '@tt/s', version: '1.2.3', head, contentText: JSON.stringify({ documents: { files } }) });
    await expect(readPackage(bytes(text))).rejects.toMatchObject({ code: 'E_UNSAFE_DOCUMENT_PATH' });
  });
});

describe('documentPathKey: paths that one case-insensitive or normalizing file system would merge', () => {
  it.each([
    ['skills/A.md', 'skills/a.md'],
    ['skills/caf\u00e9.md', 'skills/cafe\u0301.md'],
    ['skills/\u017f.md', 'skills/s.md'],
    ['skills/\u0131.md', 'skills/i.md'],
    ['skills/\u212a.md', 'skills/k.md'],
    ['skills/\uff41.md', 'skills/a.md'],
  ])('%j and %j share a key and are E_DUPLICATE_DOCUMENT', (a, b) => {
    expect(documentPathKey(a)).toBe(documentPathKey(b));
    expect(codes([doc(a), doc(b)])).toContain('E_DUPLICATE_DOCUMENT');
  });
  it('distinct names keep distinct keys', () => {
    expect(documentPathKey('skills/a.md')).not.toBe(documentPathKey('skills/b.md'));
    expect(documentPathKey('skills/i.md')).not.toBe(documentPathKey('skills/j.md'));
  });
});

/**
 * The ZIP form's entries go through the byte fast path (json/fast-bytes.ts) when it takes both,
 * else through the strict parser (package-container.ts). Whatever the path, the verdict must be
 * the one of the strict path as written before the fast path: same validity, checks, problems,
 * model and content text, or the same error.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readArchiveParts } from './archive/reader.js';
import { writeArchive } from './archive/writer.js';
import { CtxpkgError } from './errors.js';
import { parseJsonDocument, parseStrictJson, RawNumber, type JsonValue } from './json/parse.js';
import { decodePackageParts, type PackageParts } from './package-container.js';
import { verifyParts } from './package-verify.js';
import { writePackage } from './package-write.js';

const SEED = new Uint8Array(32).fill(9);
const enc = new TextEncoder();
const dec = new TextDecoder();

/** The container step for the ZIP form as it was before the fast path: strict parses only. */
async function strictZipParts(zip: Uint8Array): Promise<PackageParts> {
  const parts = await readArchiveParts(zip);
  const manifestRaw = parseStrictJson(parts.manifestText, { rawNumbers: true });
  const contentRaw = parseStrictJson(parts.contentText, { rawNumbers: true });
  const isObject = (v: JsonValue) => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof RawNumber);
  if (!isObject(manifestRaw)) throw new CtxpkgError('E_STRUCTURE', 'the archive manifest must be a JSON object');
  if (!isObject(contentRaw)) throw new CtxpkgError('E_STRUCTURE', 'the archive content must be a JSON object');
  return { form: 'zip', manifestText: parts.manifestText, contentText: parts.contentText, manifestRaw, contentRaw, plainNumbers: false, blobs: parts.blobs };
}

/** What verification concludes from parts made by `decode`, or the error it throws. */
async function verdictOf(decode: () => Promise<PackageParts>): Promise<unknown> {
  try {
    const parts = await decode();
    const v = await verifyParts(parts);
    return {
      valid: v.valid,
      checks: v.checks,
      issues: v.issues,
      manifest: v.manifest,
      content: v.content,
      contentText: v.contentText,
      signer: v.signer,
    };
  } catch (e) {
    if (!(e instanceof CtxpkgError)) throw e;
    return { code: e.code, message: e.message };
  }
}

/** The manifest and content member texts of a JSON bundle, as written. */
function memberTexts(bundle: Uint8Array): { manifestText: string; contentText: string } {
  const text = dec.decode(bundle);
  const doc = parseJsonDocument(text);
  const m = doc.memberSpans.get('manifest')!;
  const c = doc.memberSpans.get('content')!;
  return { manifestText: text.slice(m.start, m.end), contentText: text.slice(c.start, c.end) };
}

const chars = fc.constantFrom('a', 'Z', ' ', '"', '\\', '\n', '\t', '\u0000', '\u001f', 'é', '日', '😀', '\u2028', '/', '{', ':');
const node = fc.record({
  content: fc.string({ unit: chars, maxLength: 12 }),
  activation: fc.constantFrom(0, 0.5, 1, 0.25),
  type: fc.constantFrom('fact', 'gotcha', 'convention'),
});

/** Edits of the stored texts: values the fast path must refer to the strict parser, or take identically. */
const edits: Array<[string, (t: string) => string]> = [
  ['as written', (t) => t],
  ['compact', (t) => JSON.stringify(JSON.parse(t))],
  ['fraction in an integer field', (t) => t.replace(/"coactivations": \d+/, '"coactivations": 2.0')],
  ['exponent in an integer field', (t) => t.replace(/"coactivations": \d+/, '"coactivations": 2e0')],
  ['unsafe integer', (t) => t.replace(/"coactivations": \d+/, '"coactivations": 9007199254740993')],
  ['huge exponent', (t) => t.replace(/"activation": [0-9.]+/, '"activation": 1e400')],
  ['negative zero', (t) => t.replace(/"activation": [0-9.]+/, '"activation": -0')],
  ['exponent form', (t) => t.replace(/"activation": [0-9.]+/, '"activation": 5E-1')],
  ['duplicate key', (t) => t.replace(/"id": /, '"id": "dup", "id": ')],
  ['__proto__ key', (t) => t.replace(/"id": /, '"__proto__": 1, "id": ')],
  ['escaped key', (t) => t.replace(/"type": /, '"typ\\u0065": ')],
  ['lone surrogate escape', (t) => t.replace(/"content": "/, '"content": "\\ud800')],
  ['paired surrogate escape', (t) => t.replace(/"content": "/, '"content": "\\ud83d\\ude00')],
  ['bad escape', (t) => t.replace(/"content": "/, '"content": "\\x')],
  ['trailing comma', (t) => t.replace(/\]\s*\}\s*$/, '],}')],
  ['not an object', () => '[1, 2]'],
  ['BOM', (t) => `\ufeff${t}`],
  ['deep nesting', (t) => t.replace(/"id": /, `"deep": ${'['.repeat(70)}${']'.repeat(70)}, "id": `)],
  ['unknown field', (t) => t.replace(/"id": /, '"colour": "red", "id": ')],
];
const manifestEdits: Array<[string, (t: string) => string]> = [
  ['as written', (t) => t],
  ['fraction in byte_size', (t) => t.replace(/"byte_size": (\d+)/, '"byte_size": $1.0')],
  ['duplicate name', (t) => t.replace(/"name": /, '"name": "@x/y", "name": ')],
  ['other version', (t) => t.replace(/"version": "[^"]*"/, '"version": "2.0.0"')],
];

describe('ZIP form: byte fast path against the strict parser', () => {
  it('gives the verdict of the strict path for packages and edits of their texts (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(node, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: edits.length - 1 }),
        fc.integer({ min: 0, max: manifestEdits.length - 1 }),
        fc.boolean(),
        async (nodes, e, me, withBlob) => {
          const blob = enc.encode(`blob of ${nodes.length}`);
          const ref = `sha256-${createHash('sha256').update(blob).digest('hex')}`;
          const bundle = writePackage(
            {
              manifest: { name: '@acme/zip', version: '1.0.0', created_at: '2026-01-02T03:04:05Z' },
              content: {
                context_graph: {
                  format: 'ctxpkg-graph-v2',
                  nodes: nodes.map((n, i) => ({ id: `n${i}`, ...n, ...(withBlob && i === 0 ? { blob_ref: ref } : {}) })),
                  edges: nodes.length > 1 ? [{ from: 'n1', to: 'n0', type: 'supports', weight: 0.5, coactivations: 3 }] : [],
                },
              },
            },
            { seed: SEED },
          );
          const t = memberTexts(bundle);
          const zip = await writeArchive({
            manifestText: manifestEdits[me]![1](t.manifestText),
            contentText: edits[e]![1](t.contentText),
            blobs: withBlob ? new Map([[ref, blob]]) : new Map(),
          });
          const fast = await verdictOf(() => decodePackageParts(zip, { maxBytes: zip.length }));
          expect(fast).toEqual(await verdictOf(() => strictZipParts(zip)));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('takes the fast path for a package as written and the strict path for what it refers back', async () => {
    const bundle = writePackage(
      {
        manifest: { name: '@acme/zip', version: '1.0.0', created_at: '2026-01-02T03:04:05Z' },
        content: { context_graph: { format: 'ctxpkg-graph-v2', nodes: [{ id: 'a', type: 'fact', content: 'x', activation: 1 }], edges: [] } },
      },
      { seed: SEED },
    );
    const t = memberTexts(bundle);
    const fast = await decodePackageParts(await writeArchive(t));
    expect(fast.plainNumbers).toBe(true);
    expect(fast.contentCompacted).toBe(true);
    const dup = await writeArchive({ ...t, contentText: t.contentText.replace(/"id": /, '"id": "b", "id": ') });
    await expect(decodePackageParts(dup)).rejects.toMatchObject({ code: 'E_DUPLICATE_KEY' });
    const fraction = await decodePackageParts(await writeArchive({ ...t, manifestText: t.manifestText.replace(/"byte_size": (\d+)/, '"byte_size": $1.0') }));
    expect(fraction.plainNumbers).toBe(false);
  });
});

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecrets, secretKinds } from '../secrets.js';
import { compilePack } from './compile.js';
import { DigestArena } from './digests.js';
import { NodeFacts, nodeSecrets, touchNodes } from './node-facts.js';
import { forceOf } from './order.js';
import { graph, node, NOW } from './__tests__/graph.js';

const sha = (s: string): string => 'sha256:' + createHash('sha256').update(s, 'utf8').digest('hex');
const LEAK = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

type Node = ReturnType<typeof node>;
/** One remembered array per node (the tests change nodes in place and ask again). */
const memos = new Map<Node, NodeFacts>();
const memoOf = (n: Node): NodeFacts => memos.get(n) ?? memos.set(n, new NodeFacts([n])).get(n)!;
const nodeSecretKinds = (n: Node) => memoOf(n).secretKinds(0);
const nodeContentHash = (n: Node) => memoOf(n).contentHash(0);
const nodeOmissionHash = (n: Node) => memoOf(n).omissionHash(0);

describe('node facts', () => {
  it('finds secrets in content and metadata, and hashes the content', () => {
    const n = node('@a/x', 'k', { content: `token ${LEAK}`, file_path: 'docs/a.md' });
    expect(nodeSecretKinds(n)).toEqual(['github_token']);
    expect(nodeSecrets(n).map((f) => f.kind)).toEqual(['github_token']);
    expect(nodeContentHash(n)).toBe(sha(n.content));
    expect(nodeOmissionHash(n)).toBe(sha(redactSecrets(n.content).text));
    const meta = node('@a/x', 'm', { content: 'clean text', file_path: `keys/${LEAK}.md` });
    expect(nodeSecretKinds(meta)).toEqual(['github_token']);
    // A secret only in the path: the content itself is clean, so its hash is the plain one.
    expect(nodeOmissionHash(meta)).toBe(sha('clean text'));
    expect(nodeSecretKinds(node('@a/x', 'c', { category: `cat ${LEAK}` }))).toEqual(['github_token']);
    expect(nodeSecretKinds(node('@a/x', `key-${LEAK}`))).toEqual(['github_token']);
  });

  it('metadata cleared line by line gives the answer of the joined scan (an operator opening a line reads the line before)', () => {
    const value = 'AbCdEfGh0123456789/+AbCdEfGh0123456789/+';
    // The key ends the id; its operator and value open the category: one finding across the LF.
    const across = node('@a/x', 'aws_secret_access_key', { category: `  = ${value}` });
    expect(nodeSecretKinds(across)).toEqual(secretKinds(nodeSecrets(across)));
    expect(nodeSecretKinds(across)).toContain('aws_secret_access_key');
    const pieces = ['token', 'aws_secret_key', 'api_key', ' ', '\n', '\t', ':', '=', '"', "'", 'AGENTS.md', 'x', '/', 'ghp_', value, 'sk-', 'Basic ', 'hunter2-Pass', '://u:pw@h'];
    const text = fc.array(fc.constantFrom(...pieces), { maxLength: 6 }).map((xs) => xs.join(''));
    fc.assert(
      fc.property(text, text, fc.option(text, { nil: undefined }), fc.option(text, { nil: undefined }), (local, content, category, file) => {
        const n = node('@a/x', local === '' ? 'k' : local, { content, ...(category !== undefined ? { category } : {}), ...(file !== undefined ? { file_path: file } : {}) });
        expect(new NodeFacts([n]).secretKinds(0)).toEqual(secretKinds(nodeSecrets(n)));
      }),
      { numRuns: 2000 },
    );
    // Many nodes in one memo, categories and paths repeating from node to node (the verdict on
    // the last category and path seen is remembered): each node's answer is still its own.
    const few = fc.constantFrom('AGENTS.md', '  = ' + value, 'token:', 'docs/x.md', '', `k/${LEAK}`);
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.option(few, { nil: undefined }), fc.option(few, { nil: undefined })), { maxLength: 12 }), (rows) => {
        const nodes = rows.map(([local, category, file], i) => node('@a/x', `${local}${i}`, { content: 'x', ...(category !== undefined ? { category } : {}), ...(file !== undefined ? { file_path: file } : {}) }));
        const facts = new NodeFacts(nodes);
        nodes.forEach((n, i) => expect(facts.secretKinds(i)).toEqual(secretKinds(nodeSecrets(n))));
      }),
      { numRuns: 1000 },
    );
  });

  it('recomputes when a remembered node is changed in place (never a stale answer)', () => {
    const n = node('@a/x', 'k', { content: 'nothing here' });
    expect(nodeSecretKinds(n)).toEqual([]);
    expect(nodeContentHash(n)).toBe(sha('nothing here'));
    n.content = `now ${LEAK}`;
    expect(nodeSecretKinds(n)).toEqual(['github_token']);
    expect(nodeContentHash(n)).toBe(sha(n.content));
    n.content = 'clean again';
    n.file_path = `x/${LEAK}`;
    expect(nodeSecretKinds(n)).toEqual(['github_token']);
    n.file_path = 'x/y.md';
    expect(nodeSecretKinds(n)).toEqual([]);
  });

  it('omissionHashOfCurrent gives omissionHash of a node whose entry is current (secret in content, in metadata, or none)', () => {
    const texts = fc.constantFrom('plain words', `key ${LEAK}`, '', 'x'.repeat(300), `a\n${LEAK}\nb`, 'naïve – ünïcödé');
    fc.assert(
      fc.property(fc.array(fc.tuple(texts, fc.constantFrom('AGENTS.md', `k/${LEAK}.md`), fc.boolean()), { maxLength: 8 }), (rows) => {
        const nodes = rows.map(([content, file], i) => node('@a/x', `n${i}`, { content, file_path: file }));
        const facts = new NodeFacts(nodes);
        nodes.forEach((n, i) => {
          if (rows[i]![2]) facts.secretKinds(i); // made current; else the entry is computed on the way
          const want = new NodeFacts([n]).omissionHash(0);
          expect(facts.omissionHashOfCurrent(i)).toBe(want);
          const to = new DigestArena(2);
          facts.omissionDigestOfCurrentTo(i, to, 1);
          expect('sha256:' + to.hex(1)).toBe(want);
          facts.omissionDigestTo(i, to, 0);
          expect('sha256:' + to.hex(0)).toBe(want);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('any sequence of reads and in-place changes answers as a fresh memo (force, kinds, hashes share one remembered content)', () => {
    const contents = ['plain words', `key ${LEAK}`, 'Never commit API keys.', 'Always run the tests.', `never ${LEAK}`, ''];
    const field = fc.constantFrom('content', 'id', 'category', 'file_path');
    const value = fc.constantFrom(...contents, 'AGENTS.md', `k/${LEAK}.md`, 'docs/a.md');
    const read = fc.constantFrom('force', 'kinds', 'contentHash', 'omissionHash', 'ofCurrent', 'digestTo', 'digestOfCurrentTo');
    const op = fc.oneof(fc.tuple(fc.constant('read'), fc.nat(1), read), fc.tuple(fc.constant('set'), fc.nat(1), field, value));
    fc.assert(
      fc.property(fc.array(op, { minLength: 4, maxLength: 40, size: 'medium' }), (ops) => {
        const nodes = [0, 1].map((i) => node('@a/x', `n${i}`, { content: contents[i]!, file_path: 'docs/a.md' }));
        const facts = new NodeFacts(nodes);
        // Digests copied out (as the pack compiler copies them into a receipt's table) and the
        // hash each had when copied: later changes and reads must not alter a copy.
        const copies = new DigestArena(1);
        const copied: string[] = [];
        for (const o of ops) {
          const i = o[1];
          const n = nodes[i]!;
          if (o[0] === 'set') {
            const [, , f, v] = o as [string, number, 'content' | 'id' | 'category' | 'file_path', string];
            // A new string of the same value as often as another value: the memo compares by value.
            (n as unknown as Record<string, unknown>)[f] = f === 'id' ? `@a/x#${v.length}${v.slice(0, 3)}` : `${v}`;
            continue;
          }
          const fresh = new NodeFacts([{ ...n }]);
          const r = o[2];
          if (r === 'force') expect(facts.force(i)).toBe(forceOf(n.content));
          else if (r === 'kinds') expect(facts.secretKinds(i)).toEqual(fresh.secretKinds(0));
          else if (r === 'contentHash') expect(facts.contentHash(i)).toBe(sha(n.content));
          else if (r === 'omissionHash') expect(facts.omissionHash(i)).toBe(fresh.omissionHash(0));
          else if (r === 'ofCurrent') {
            facts.secretKinds(i);
            expect(facts.omissionHashOfCurrent(i)).toBe(fresh.omissionHash(0));
          } else {
            copies.reserve(copied.length);
            if (r === 'digestTo') facts.omissionDigestTo(i, copies, copied.length);
            else {
              facts.secretKinds(i);
              facts.omissionDigestOfCurrentTo(i, copies, copied.length);
            }
            copied.push(fresh.omissionHash(0));
          }
        }
        copied.forEach((h, k) => expect('sha256:' + copies.hex(k)).toBe(h));
      }),
      { numRuns: 2000 },
    );
  });

  it('receipt: an omitted node holding a secret carries the redacted hash whatever the reason', () => {
    const superseded = node('@a/x', 'old', { content: `old key ${LEAK}`, superseded_by: ['@a/x#new'] });
    const expired = node('@a/x', 'exp', { content: `exp key ${LEAK}`, created_at: '2020-01-01T00:00:00Z', decay_half_life_days: 1 });
    const budget = node('@a/x', 'big', { content: 'y'.repeat(5000) });
    const p = compilePack({ graph: graph([superseded, expired, budget, node('@a/x', 'new')]), maxBytes: 2000, now: NOW });
    const byId = new Map(p.receipt.omissions.map((o) => [o.id, o]));
    expect(byId.get('@a/x#old')).toMatchObject({ reason: 'superseded', content_hash: sha(redactSecrets(superseded.content).text) });
    expect(byId.get('@a/x#exp')).toMatchObject({ reason: 'expired', content_hash: sha(redactSecrets(expired.content).text) });
    expect(byId.get('@a/x#big')).toMatchObject({ reason: 'byte_budget', content_hash: sha(budget.content) });
    expect(JSON.stringify(p.receipt)).not.toContain(LEAK);
  });
});

describe('touchNodes', () => {
  it('reads the nodes of [from, from + count) only, stopping at the end of the array', () => {
    const nodes = Array.from({ length: 70 }, (_, i) => node('@a/p', `n${i}`, { content: `text ${i}` }));
    const read: number[] = [];
    const spied = nodes.map((n, i) => ({ ...n, get id() { read.push(i); return n.id; } }));
    touchNodes(spied, 64, 64);
    expect(read).toEqual([64, 65, 66, 67, 68, 69]);
    read.length = 0;
    touchNodes(spied, 0, 3);
    expect(read).toEqual([0, 1, 2]);
    read.length = 0;
    touchNodes(spied, 70, 64);
    expect(read).toEqual([]);
  });
});

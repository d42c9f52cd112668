/**
 * Search ranking over the visible packages only (sqlite-rank.ts; ADVERSARIAL HB-21): private
 * packages never change the order or content of an answer for a caller who may not see them;
 * with every package visible the order and the scores equal FTS5's own bm25; a schema-2 data
 * directory is back-filled on open.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from './schema.js';
import { openSqliteStore, type SqliteStore } from './sqlite.js';
import { COLUMN_WEIGHTS, rankCandidates } from './sqlite-rank.js';
import { ftsQuery, queryWords, VISIBLE_SQL } from './sqlite-search.js';
import type { PublishRecord, Visibility } from './types.js';

const KEY = 'a'.repeat(64);
const T0 = '2026-01-02T03:04:05Z';
let dir: string;
let store: SqliteStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxpkg-rank-'));
  store = await openSqliteStore({ dataDir: dir });
  for (const ns of ['acme', 'other', 'third']) {
    await store.createNamespace({ name: ns, owner: 'ops', created_at: T0 });
    await store.addSignerKey(ns, KEY, T0);
  }
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function put(ns: string, name: string, text: string, visibility: Visibility = 'public', over: Partial<PublishRecord> = {}): Promise<void> {
  const body = new TextEncoder().encode(`package ${ns}/${name} ${n++}`);
  const { sha256 } = await store.putBlob(body);
  try {
    await store.commitPublish({
      namespace: ns, name, version: '1.0.0', precedence_key: '1.0.0', artifact_sha256: sha256, size_bytes: body.byteLength,
      integrity_sha256: 'c'.repeat(64), signer_public_key: KEY, visibility, description: 'x', tags: [], dependencies: [],
      search_text: text, trust_report: () => ({}), published_at: T0, published_by: 't', ...over,
    });
  } finally {
    await store.releaseBlob(sha256);
  }
}

const names = async (ns: string[], q: string): Promise<string[]> => (await store.search({ namespaces: ns }, q, { limit: 50 })).map((h) => `@${h.namespace}/${h.name}`);

describe('ranking statistics come from the visible packages only', () => {
  it('20 private packages with the query words change neither the order nor the snippets of an anonymous answer', async () => {
    await put('acme', 'pa', 'alpha alpha alpha beta filler filler filler');
    await put('acme', 'pb', 'alpha beta beta beta filler filler filler');
    const before = await store.search({ namespaces: [] }, 'alpha beta', { limit: 50 });
    for (let i = 0; i < 20; i++) await put('other', `secret-${i}`, 'alpha words of the secret plan', 'private');
    expect(await store.search({ namespaces: [] }, 'alpha beta', { limit: 50 })).toEqual(before);
    // A token of "third" sees neither: same answer again.
    expect(await store.search({ namespaces: ['third'] }, 'alpha beta', { limit: 50 })).toEqual(before);
    // The owner of the private packages sees them, ranked with statistics that include them.
    expect((await names(['other'], 'alpha')).length).toBe(22);
  });

  it('a caller who sees private packages gets statistics over public + their own, not over other namespaces', async () => {
    await put('acme', 'pa', 'alpha alpha alpha beta filler');
    await put('acme', 'pb', 'alpha beta beta beta filler');
    await put('third', 'mine', 'gamma beta', 'private');
    const own = await names(['third'], 'alpha beta');
    for (let i = 0; i < 10; i++) await put('other', `hidden-${i}`, 'alpha alpha', 'private');
    expect(await names(['third'], 'alpha beta')).toEqual(own);
  });

  it('the statistics follow a visibility change', async () => {
    await put('acme', 'pa', 'alpha alpha alpha beta filler filler filler');
    await put('acme', 'pb', 'alpha beta beta beta filler filler filler');
    const anon = await names([], 'alpha beta');
    for (let i = 0; i < 20; i++) await put('other', `s-${i}`, 'alpha words', 'private');
    expect(anon).toEqual(['@acme/pa', '@acme/pb']);
    expect(await names([], 'alpha beta')).toEqual(anon);
    for (let i = 0; i < 20; i++) await store.setPackageVisibility('other', `s-${i}`, 'public', T0, 'test');
    // Made public they count: "alpha" is now common (low idf), so "beta" decides the order. They
    // do not match "beta" themselves, so the result list keeps two packages.
    expect(await names([], 'alpha beta')).toEqual(['@acme/pb', '@acme/pa']);
  });
});

describe('fidelity to FTS5 bm25 when everything is visible', () => {
  it('same order and the same scores (−bm25) as FTS5 over a mixed corpus', async () => {
    const words = ['token', 'refresh', 'races', 'jwt', 'rotate', 'secret', 'cache', 'tokens', 'Ünïcode', 'straße'];
    let seed = 7;
    const rnd = (k: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % k);
    for (let i = 0; i < 40; i++) {
      const text = Array.from({ length: 3 + rnd(30) }, () => words[rnd(words.length)]).join(' ');
      await put(i % 2 ? 'acme' : 'other', `p${i}`, text, 'public', { description: rnd(3) === 0 ? 'token cache' : 'x', tags: rnd(4) === 0 ? ['jwt'] : [] });
    }
    const db = store.db;
    for (const q of ['token', 'tok refresh', 'jwt', 'unicode', 'strasse', 'straße token', 'p1', 'acme cache']) {
      const match = ftsQuery(q) as string;
      const native = db
        .prepare(
          `SELECT p.id AS id, bm25(package_search, ${COLUMN_WEIGHTS.join(', ')}) AS rank FROM package_search JOIN packages p ON p.id = package_search.rowid
           WHERE package_search MATCH ? ORDER BY rank, p.namespace, p.name`,
        )
        .all(match) as Array<{ id: number; rank: number }>;
      const ours = rankCandidates(db, queryWords(q), native.map((r) => r.id), VISIBLE_SQL, '[]');
      for (const r of native) expect(ours.get(r.id), `${q} #${r.id}`).toBeCloseTo(-r.rank, 9);
      const hits = (await store.search({ namespaces: [] }, q, { limit: 50 })).map((h) => `${h.namespace}/${h.name}`);
      const byId = new Map((db.prepare('SELECT id, namespace, name FROM packages').all() as Array<{ id: number; namespace: string; name: string }>).map((p) => [p.id, `${p.namespace}/${p.name}`]));
      expect(hits, q).toEqual(native.map((r) => byId.get(r.id)));
    }
  });
});

describe('schema 3 migration', () => {
  it('back-fills the term counts of a schema-2 directory on open; search ranks as before', async () => {
    await put('acme', 'pa', 'alpha alpha alpha beta filler filler filler');
    await put('acme', 'pb', 'alpha beta beta beta filler filler filler');
    const before = await store.search({ namespaces: [] }, 'alpha beta', { limit: 50 });
    store.db.exec("DELETE FROM search_terms; DELETE FROM search_docs; UPDATE meta SET value = '2' WHERE key = 'schema_version'");
    await store.close();
    store = await openSqliteStore({ dataDir: dir });
    expect(store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(String(SCHEMA_VERSION));
    expect(store.db.prepare('SELECT count(*) FROM search_docs').pluck().get()).toBe(2);
    expect(await store.search({ namespaces: [] }, 'alpha beta', { limit: 50 })).toEqual(before);
  });
});

/**
 * The store queries behind the pages (`recentPublishes`, `namespaceSummaries`, `dependents`) on
 * every backend: newest-first order, visibility applied in the query, and answers identical to a
 * store without the packages the caller may not see.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeBackends, openTestStore, type AnyStore, type BackendName } from '../__tests__/backends.js';
import type { DependencyRecord, PublishRecord, Visibility } from './types.js';

const KEY = 'a'.repeat(64);
let store: AnyStore;
let cleanup: () => Promise<void>;
let clock = 0;

async function publish(namespace: string, name: string, version: string, o: { visibility?: Visibility; deps?: DependencyRecord[] } = {}) {
  const body = new TextEncoder().encode(`${namespace}/${name}@${version}`);
  const { sha256 } = await store.putBlob(body);
  const at = new Date(Date.UTC(2026, 0, 2, 3, 4, clock++)).toISOString();
  try {
    const rec: PublishRecord = {
      namespace, name, version, precedence_key: version, artifact_sha256: sha256, size_bytes: body.byteLength,
      integrity_sha256: 'c'.repeat(64), signer_public_key: KEY, visibility: o.visibility ?? 'public',
      description: `${name} ${version}`, tags: [], dependencies: o.deps ?? [], search_text: name,
      trust_report: () => ({}), published_at: at, published_by: 'tok_1',
    };
    await store.commitPublish(rec);
  } finally {
    await store.releaseBlob(sha256);
  }
}

const anyone = { namespaces: [] };
const acme = { namespaces: ['acme'] };
const dep = (name: string, optional = false): DependencyRecord => ({ name, version_req: '^1', optional });

describeBackends('store queries for the pages', (backend: BackendName) => {
  beforeEach(async () => {
    ({ store, cleanup } = await openTestStore(backend));
    for (const ns of ['acme', 'beta', 'empty', 'hidden']) await store.createNamespace({ name: ns, owner: 'ops', created_at: '2026-01-01T00:00:00Z' });
  });
  afterEach(async () => cleanup());

  it('recentPublishes: newest first, yank state, private ones only for their namespace', async () => {
    await publish('beta', 'one', '1.0.0');
    await publish('acme', 'secret', '1.0.0', { visibility: 'private' });
    await publish('beta', 'one', '1.1.0');
    await publish('acme', 'open', '0.1.0');
    await store.setYanked('beta', 'one', '1.0.0', true, '2026-01-03T00:00:00Z', 'tok_1');
    const seen = (await store.recentPublishes(anyone, { limit: 10 })).map((r) => `${r.namespace}/${r.name}@${r.version}${r.yanked ? ' yanked' : ''}`);
    expect(seen).toEqual(['acme/open@0.1.0', 'beta/one@1.1.0', 'beta/one@1.0.0 yanked']);
    const mine = await store.recentPublishes(acme, { limit: 2 });
    expect(mine.map((r) => `${r.name}@${r.version}`)).toEqual(['open@0.1.0', 'one@1.1.0']);
    expect((await store.recentPublishes(acme, { limit: 10 })).find((r) => r.name === 'secret')).toMatchObject({ visibility: 'private', description: 'secret 1.0.0' });
  });

  it('namespaceSummaries: namespaces with visible packages, plus the caller’s own', async () => {
    await publish('beta', 'one', '1.0.0');
    await publish('beta', 'two', '1.0.0');
    await publish('hidden', 'only', '1.0.0', { visibility: 'private' });
    await publish('acme', 'secret', '1.0.0', { visibility: 'private' });
    expect(await store.namespaceSummaries(anyone)).toEqual([{ namespace: 'beta', packages: 2, updated_at: expect.any(String) }]);
    const own = await store.namespaceSummaries({ namespaces: ['acme', 'empty'] });
    expect(own.map((n) => [n.namespace, n.packages])).toEqual([
      ['acme', 1],
      ['beta', 2],
      ['empty', 0],
    ]);
    expect(own.find((n) => n.namespace === 'empty')!.updated_at).toBeNull();
  });

  it('dependents: the latest version’s declared dependencies, visible packages only', async () => {
    await publish('beta', 'base', '1.0.0');
    await publish('beta', 'uses', '1.0.0', { deps: [dep('@beta/base', true), dep('@beta/other')] });
    await publish('acme', 'private-user', '1.0.0', { visibility: 'private', deps: [dep('@beta/base')] });
    await publish('acme', 'dropped', '1.0.0', { deps: [dep('@beta/base')] });
    await publish('acme', 'dropped', '2.0.0');
    expect(await store.dependents(anyone, '@beta/base', { limit: 10 })).toEqual([
      { namespace: 'beta', name: 'uses', version: '1.0.0', version_req: '^1', optional: true },
    ]);
    const mine = await store.dependents(acme, '@beta/base', { limit: 10 });
    expect(mine.map((d) => `@${d.namespace}/${d.name}`)).toEqual(['@acme/private-user', '@beta/uses']);
    expect(await store.dependents(acme, '@beta/base', { limit: 1 })).toHaveLength(1);
    expect(await store.dependents(anyone, '@beta/nothing', { limit: 10 })).toEqual([]);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addSignerKey, createToken, revokeSignerKey, revokeToken, setPackageVisibility } from '../admin.js';
import { makePackage, describeBackends, newTestRegistry, OTHER_SEED, sha256Hex, storageSnapshot, TEST_PUBLIC_KEY, type TestRegistry } from '../__tests__/support.js';

let r: TestRegistry;
describeBackends('publish-route', (backend) => {
  beforeEach(async () => {
    r = await newTestRegistry({}, backend);
  });
  afterEach(async () => {
    await r.close();
  });

  const URL_KB = '/v1/packages/acme/kb';

  /** A body stream that records whether anything pulled from it. */
  function watchedBody(bytes: Uint8Array): { body: ReadableStream<Uint8Array>; pulled: () => boolean } {
    let pulled = false;
    return {
      body: new ReadableStream(
        {
          pull(ctrl) {
            pulled = true;
            ctrl.enqueue(bytes);
            ctrl.close();
          },
        },
        { highWaterMark: 0 },
      ),
      pulled: () => pulled,
    };
  }

  async function putStream(path: string, bytes: Uint8Array, token?: string) {
    const w = watchedBody(bytes);
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await r.app.request(`http://registry.test${path}`, { method: 'PUT', body: w.body, headers, duplex: 'half' } as RequestInit);
    return { res, pulled: w.pulled() };
  }

  describe('PUT publish: success', () => {
    it('answers 201 with the artifact hash, size and a trust report that names what was not checked', async () => {
      const bytes = makePackage({ dependencies: [{ name: '@acme/base', version_req: '^1.2' }] });
      const res = await r.put(`${URL_KB}/1.0.0`, bytes, r.tokens.acmePublish);
      expect(res.status).toBe(201);
      const body = (await res.json()) as Record<string, any>;
      expect(body.published).toBe('@acme/kb@1.0.0');
      expect(body.artifact_sha256).toBe(await sha256Hex(bytes));
      expect(body.size_bytes).toBe(bytes.byteLength);
      expect(body.signer_public_key).toBe(TEST_PUBLIC_KEY);
      expect(res.headers.get('location')).toBe('/v1/packages/acme/kb/1.0.0/download');
      const checked = body.trust_report.checked.map((c: { check: string }) => c.check);
      expect(checked).toEqual(['size', 'structure', 'content_hash', 'integrity_sha256', 'signature', 'name_binding', 'version', 'dependency_syntax', 'scope_globs', 'secrets', 'signer_key', 'immutability']);
      expect(body.trust_report.not_checked.map((c: { check: string }) => c.check)).toEqual(
        expect.arrayContaining(['unsigned_manifest_fields', 'dependencies', 'content_accuracy', 'signer_identity']),
      );
      expect(body.trust_report.checked.find((c: { check: string }) => c.check === 'signer_key').detail).toContain('first publish');
      const idx = (await (await r.req(`${URL_KB}/index.json`)).json()) as Record<string, any>;
      expect(idx.versions[0]).toMatchObject({ version: '1.0.0', dependencies: [{ name: '@acme/base', version_req: '^1.2', optional: false }] });
    });
  });

  describe('PUT publish: auth decided before the body (HB-21 1-4)', () => {
    it.each([
      ['no Authorization', undefined, 401, 'E_AUTH'],
      ['a bogus token', 'ctxp_bogus', 401, 'E_AUTH'],
      ['a well-formed unknown token', 'ctxp_' + 'A'.repeat(43), 401, 'E_AUTH'],
      ['a read token', 'acmeRead', 400, 'E_FORBIDDEN'],
      ["another namespace's publish token", 'otherPublish', 403, 'E_FORBIDDEN'],
    ])('%s → %s without reading the body or storing anything', async (_label, tok, status, code) => {
      const before = await storageSnapshot(r.store);
      const token = tok && tok in r.tokens ? r.tokens[tok as keyof typeof r.tokens] : tok;
      const { res, pulled } = await putStream(`${URL_KB}/1.2.0`, makePackage({ version: '1.2.0' }), token);
      expect(res.status).toBe(status);
      const body = (await res.json()) as { code: string; hint?: string };
      expect(body).toMatchObject({ code });
      // The fix names the remote form: an owner creates tokens from their machine, not with --data on the server.
      if (status === 401) expect(body.hint).toContain('ctxpkg registry token create --namespace <ns> --scope publish --registry <url>');
      expect(pulled).toBe(false);
      if (status === 401) expect(res.headers.get('www-authenticate')).toBe('Bearer realm="ctxpkg"');
      expect(await storageSnapshot(r.store)).toBe(before);
    });

    it('refuses revoked and expired tokens (401)', async () => {
      const revoked = await createToken({ store: r.store }, { namespace: 'acme', scope: 'publish' });
      await revokeToken({ store: r.store }, revoked.id);
      expect((await r.put(`${URL_KB}/1.0.0`, makePackage(), revoked.token)).status).toBe(401);
      const past = new Date(Date.now() - 10 * 86_400_000);
      const expiring = await createToken({ store: r.store, clock: () => past }, { namespace: 'acme', scope: 'publish', expires: '1d' });
      const res = await r.put(`${URL_KB}/1.0.0`, makePackage(), expiring.token);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toContain('expired');
    });

    it('answers 409 for an existing version before reading the body', async () => {
      const control = await putStream(`${URL_KB}/1.0.0`, makePackage(), r.tokens.acmePublish);
      expect(control.res.status).toBe(201);
      expect(control.pulled).toBe(true);
      const { res, pulled } = await putStream(`${URL_KB}/1.0.0`, makePackage({ description: 'other' }), r.tokens.acmePublish);
      expect(res.status).toBe(409);
      expect(pulled).toBe(false);
    });
  });

  describe('PUT publish: the gate (HB-21 5-7, secrets, signer keys)', () => {
    it.each([
      ['manifest name differs from the URL', `${URL_KB}/1.0.0`, { name: '@acme/other' }, 'E_NAME_MISMATCH'],
      ['manifest version differs from the URL', `${URL_KB}/1.2.1`, { version: '1.2.0' }, 'E_NAME_MISMATCH'],
      ['unsigned package', `${URL_KB}/1.0.0`, { seed: null }, 'E_UNSIGNED'],
      ['a dependency range every client refuses (latest)', `${URL_KB}/1.0.0`, { dependencies: [{ name: '@acme/base', version_req: 'latest' }] }, 'E_INVALID_RANGE'],
      ['a dependency range every client refuses (>>1<<)', `${URL_KB}/1.0.0`, { dependencies: [{ name: '@acme/base', version_req: '^1.2' }, { name: '@acme/more', version_req: '>>1<<' }] }, 'E_INVALID_RANGE'],
    ] as const)('%s → 400 %s, nothing stored', async (_l, path, opts, code) => {
      const before = await storageSnapshot(r.store);
      const res = await r.put(path, makePackage(opts), r.tokens.acmePublish);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code });
      expect(await storageSnapshot(r.store)).toBe(before);
    });

    it('refuses garbage, a tampered package and an invalid visibility (400)', async () => {
      const before = await storageSnapshot(r.store);
      expect((await r.put(`${URL_KB}/1.0.0`, new TextEncoder().encode('not json'), r.tokens.acmePublish)).status).toBe(400);
      const text = new TextDecoder().decode(makePackage());
      const tampered = new TextEncoder().encode(text.replace('serialise refreshes', 'serialize refreshes'));
      expect(await (await r.put(`${URL_KB}/1.0.0`, tampered, r.tokens.acmePublish)).json()).toMatchObject({ code: 'E_INTEGRITY' });
      // visibility is not covered by the signature, so this still verifies; the gate refuses it.
      const vis = new TextEncoder().encode(new TextDecoder().decode(makePackage({ visibility: 'private' })).replace('"private"', '"Private"'));
      const res = await r.put(`${URL_KB}/1.0.0`, vis, r.tokens.acmePublish);
      expect(res.status).toBe(400);
      expect(await storageSnapshot(r.store)).toBe(before);
    });

    it('refuses content with a secret, naming path and kind but never the value', async () => {
      const secret = 'ghp_' + 'x7Kq9ZrT2mWv8LpN4bYc6DjF1hGs3AeR5uQo';
      const res = await r.put(`${URL_KB}/1.0.0`, makePackage({ nodes: [{ content: `deploy with token ${secret}` }] }), r.tokens.acmePublish);
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ code: 'E_SECRET', details: { findings: [{ path: 'content.context_graph.nodes[0].content' }] } });
      expect(text).not.toContain(secret);
      expect(await r.store.listVersions('acme', 'kb')).toEqual([]);
    });

    it('binds the namespace to its first signer; owners add and revoke keys', async () => {
      expect((await r.put(`${URL_KB}/1.0.0`, makePackage(), r.tokens.acmePublish)).status).toBe(201);
      const other = makePackage({ version: '1.1.0', seed: OTHER_SEED });
      const refused = await r.put(`${URL_KB}/1.1.0`, other, r.tokens.acmePublish);
      expect(refused.status).toBe(400);
      const refusedBody = (await refused.json()) as { hint: string; details: { signer_public_key: string } };
      expect(refusedBody).toMatchObject({ code: 'E_SIGNER_CHANGED', details: { registered_keys: [TEST_PUBLIC_KEY] } });
      expect(refusedBody.hint).toContain(`ctxpkg registry key add acme ${refusedBody.details.signer_public_key} --registry <url>`);
      const otherKey = ((await (await r.put(`/v1/packages/other/kb/1.0.0`, makePackage({ name: '@other/kb', seed: OTHER_SEED }), r.tokens.otherPublish)).json()) as { signer_public_key: string }).signer_public_key;
      await addSignerKey({ store: r.store }, 'acme', otherKey);
      const ok = await r.put(`${URL_KB}/1.1.0`, other, r.tokens.acmePublish);
      expect(ok.status).toBe(201);
      expect(((await ok.json()) as any).trust_report.checked.find((c: { check: string }) => c.check === 'signer_key').detail).toContain('registered');
      await revokeSignerKey({ store: r.store }, 'acme', TEST_PUBLIC_KEY);
      expect((await r.put(`${URL_KB}/1.2.0`, makePackage({ version: '1.2.0' }), r.tokens.acmePublish)).status).toBe(400);
    });

    it('checks the signer key before the expensive checks: a stolen token with an unregistered key gets E_SIGNER_CHANGED, never a secret or glob verdict (issue 11 item 2)', async () => {
      expect((await r.put(`${URL_KB}/1.0.0`, makePackage(), r.tokens.acmePublish)).status).toBe(201);
      const secret = 'ghp_' + 'x7Kq9ZrT2mWv8LpN4bYc6DjF1hGs3AeR5uQo';
      const hostile = [
        `deploy with token ${secret}`,
        'key:' + '_'.repeat(20_000), // the former quadratic input of secret_assignment
      ];
      for (const [i, content] of hostile.entries()) {
        const res = await r.put(`${URL_KB}/2.0.${i}`, makePackage({ version: `2.0.${i}`, seed: OTHER_SEED, nodes: [{ content }] }), r.tokens.acmePublish);
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ code: 'E_SIGNER_CHANGED' });
      }
    });

    it('is private by default: a new package is private unless asked public; versions keep the package\'s visibility; an owner changes it', async () => {
      const none = { 'x-ctxpkg-visibility': '' };
      const first = await r.put(`${URL_KB}/1.0.0`, makePackage(), r.tokens.acmePublish, none);
      expect(first.status).toBe(201);
      expect(await first.json()).toMatchObject({ visibility: 'private' });
      const missing = await r.req('/v1/packages/acme/never-published/index.json');
      const hidden = await r.req(`${URL_KB}/index.json`);
      expect([hidden.status, await hidden.text()]).toEqual([404, await missing.text()]);
      expect((await r.req(`${URL_KB}/index.json`, { token: r.tokens.acmeRead })).status).toBe(200);
      // A new version keeps it; asking for the other visibility (flag or manifest) is refused.
      const second = await r.put(`${URL_KB}/1.1.0`, makePackage({ version: '1.1.0' }), r.tokens.acmePublish, none);
      expect([second.status, ((await second.json()) as { visibility: string }).visibility]).toEqual([201, 'private']);
      for (const [bytes, headers] of [
        [makePackage({ version: '1.2.0' }), { 'x-ctxpkg-visibility': 'public' }],
        [makePackage({ version: '1.2.0', visibility: 'public' }), none],
      ] as const) {
        const res = await r.put(`${URL_KB}/1.2.0`, bytes, r.tokens.acmePublish, headers);
        expect(res.status).toBe(409);
        const body = (await res.json()) as { code: string; hint: string };
        expect(body.code).toBe('E_VISIBILITY');
        expect(body.hint).toContain('ctxpkg registry visibility @acme/kb public');
      }
      expect((await r.put(`${URL_KB}/1.2.0`, makePackage({ version: '1.2.0' }), r.tokens.acmePublish, { 'x-ctxpkg-visibility': 'private' })).status).toBe(201);
      // The owner opens it; later versions stay public without saying so.
      await setPackageVisibility({ store: r.store }, '@acme/kb', 'public');
      const open = await r.put(`${URL_KB}/1.3.0`, makePackage({ version: '1.3.0' }), r.tokens.acmePublish, none);
      expect([open.status, ((await open.json()) as { visibility: string }).visibility]).toEqual([201, 'public']);
      expect((await r.req(`${URL_KB}/index.json`)).status).toBe(200);
      expect((await r.put(`${URL_KB}/1.4.0`, makePackage({ version: '1.4.0', visibility: 'private' }), r.tokens.acmePublish)).status).toBe(409);
      // A new package asked public is public at once; a declared private one is private.
      const pub = await r.put('/v1/packages/acme/open/1.0.0', makePackage({ name: '@acme/open' }), r.tokens.acmePublish, { 'x-ctxpkg-visibility': 'public' });
      expect([pub.status, ((await pub.json()) as { visibility: string }).visibility]).toEqual([201, 'public']);
      expect((await r.req('/v1/packages/acme/open/index.json')).status).toBe(200);
    });

    it('refuses a visibility header that is not public or private, and one that contradicts the manifest, before storing anything', async () => {
      const before = await storageSnapshot(r.store);
      const bad = await r.put(`${URL_KB}/1.0.0`, makePackage(), r.tokens.acmePublish, { 'x-ctxpkg-visibility': 'Public' });
      expect([bad.status, ((await bad.json()) as { code: string }).code]).toEqual([400, 'E_USAGE']);
      const clash = await r.put(`${URL_KB}/1.0.0`, makePackage({ visibility: 'private' }), r.tokens.acmePublish, { 'x-ctxpkg-visibility': 'public' });
      expect([clash.status, ((await clash.json()) as { code: string }).code]).toEqual([400, 'E_MANIFEST']);
      expect(await storageSnapshot(r.store)).toBe(before);
    });
  });

  describe('PUT publish: version identity (HB-03)', () => {
    it('treats build metadata as the same version and keeps the first artifact', async () => {
      const first = makePackage({ version: '1.0.0' });
      expect((await r.put(`${URL_KB}/1.0.0`, first, r.tokens.acmePublish)).status).toBe(201);
      const build = await r.put(`${URL_KB}/1.0.0+build.7`, makePackage({ version: '1.0.0+build.7' }), r.tokens.acmePublish);
      expect(build.status).toBe(409);
      expect(await build.json()).toMatchObject({ code: 'E_VERSION_EXISTS' });
      expect((await r.put(`${URL_KB}/1.0.1+build.1`, makePackage({ version: '1.0.1+build.1' }), r.tokens.acmePublish)).status).toBe(201);
      expect((await r.put(`${URL_KB}/1.0.1`, makePackage({ version: '1.0.1' }), r.tokens.acmePublish)).status).toBe(409);
      const idx = (await (await r.req(`${URL_KB}/index.json`)).json()) as { versions: Array<{ version: string; artifact_sha256: string }> };
      expect(idx.versions.map((v) => v.version).sort()).toEqual(['1.0.0', '1.0.1+build.1']);
      expect(idx.versions.find((v) => v.version === '1.0.0')?.artifact_sha256).toBe(await sha256Hex(first));
    });

    it.each([
      'v1.0.1',
      '1.0.1%20',
      '%201.0.1',
      '=1.0.1',
      '01.0.1',
      '1.0.1-01',
      '1.0',
      '9007199254740992.0.0',
      '1.0.0-' + 'a'.repeat(59),
    ])('refuses the URL version %j with 400 before authentication or body', async (v) => {
      const before = await storageSnapshot(r.store);
      const { res, pulled } = await putStream(`${URL_KB}/${v}`, makePackage(), r.tokens.acmePublish);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'E_INVALID_VERSION' });
      expect(pulled).toBe(false);
      expect(await storageSnapshot(r.store)).toBe(before);
    });
  });

  describe('PUT publish: names (HB-22, registry part)', () => {
    it.each(['%D0%B0uth-context', 'Auth-Context', 'auth_context', 'a'.repeat(65), '-kb', 'kb-'])('refuses @acme/%s with 400 E_INVALID_NAME', async (name) => {
      const res = await r.put(`/v1/packages/acme/${name}/1.0.0`, makePackage(), r.tokens.acmePublish);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'E_INVALID_NAME' });
    });
  });

  describe('PUT publish: other package forms', () => {
    it('accepts the ZIP form and serves its exact bytes', async () => {
      const { jsonBundleToArchive } = await import('@ctxpkg/format');
      const zip = await jsonBundleToArchive(makePackage({ version: '3.0.0' }));
      expect([zip[0], zip[1]]).toEqual([0x50, 0x4b]);
      const res = await r.put(`${URL_KB}/3.0.0`, zip, r.tokens.acmePublish);
      expect(res.status).toBe(201);
      expect(((await res.json()) as any).trust_report.checked[1].detail).toContain('ZIP');
      const dl = new Uint8Array(await (await r.req(`${URL_KB}/3.0.0/download`)).arrayBuffer());
      expect(Buffer.from(dl).equals(Buffer.from(zip))).toBe(true);
    });

    it('screens decoded skills documents for secrets', async () => {
      const { encodeZstdFrame, sha256Hex: hex, writePackage } = await import('@ctxpkg/format');
      const skills = (doc: string, version: string) => {
        const plain = new TextEncoder().encode(doc);
        return writePackage(
          {
            manifest: { name: '@acme/skills', version, description: 'skills', created_at: '2026-01-02T03:04:05Z', kind: 'skills' },
            content: {
              documents: {
                files: [{ path: 'SKILL.md', sha256: hex(plain), encoding: 'zstd+base64', body: Buffer.from(encodeZstdFrame(plain)).toString('base64') }],
              },
            },
          },
          { seed: new Uint8Array(32).fill(0x2a) },
        );
      };
      const clean = await r.put('/v1/packages/acme/skills/1.0.0', skills('# Deploy\nRun the release script.\n', '1.0.0'), r.tokens.acmePublish);
      expect(clean.status).toBe(201);
      const key = 'AKIA' + 'Q3EGRDZ7XW5NPB4T';
      const dirty = await r.put('/v1/packages/acme/skills/1.1.0', skills(`# Deploy\naws_access_key_id = ${key}\n`, '1.1.0'), r.tokens.acmePublish);
      expect(dirty.status).toBe(400);
      const text = await dirty.text();
      expect(JSON.parse(text)).toMatchObject({ code: 'E_SECRET', details: { findings: [{ path: 'content.documents/SKILL.md', line: 2 }] } });
      expect(text).not.toContain(key);
    });
  });
});

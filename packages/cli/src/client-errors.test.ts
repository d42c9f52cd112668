import { describe, expect, it } from 'vitest';
import { errorBody, networkCause, responseError } from './client-errors.js';

const json = (body: unknown, status = 400) => new Response(JSON.stringify(body), { status });

describe('registry error answers keep their hint and details', () => {
  it('reads our flat body, the nested form of other registries, and plain text', async () => {
    expect(await errorBody(json({ error: 'bad key', code: 'E_SIGNER_CHANGED', hint: 'add it', details: { signer_public_key: 'ab' } }))).toEqual({
      message: 'bad key', code: 'E_SIGNER_CHANGED', hint: 'add it', details: { signer_public_key: 'ab' },
    });
    expect(await errorBody(json({ error: { message: 'nope', code: 'E_FORBIDDEN' } }))).toMatchObject({ message: 'nope', code: 'E_FORBIDDEN' });
    expect(await errorBody(json({ error: 'x', code: 'E_NOT_A_CODE' }))).toMatchObject({ code: undefined });
    expect(await errorBody(new Response('gateway down', { status: 502 }))).toEqual({ message: 'gateway down' });
  });
  it('maps statuses with the registry hint first, ours otherwise', () => {
    const req = { registry: 'http://r/api', what: 'publish @a/b@1.0.0', name: '@a/b', sentToken: true };
    const signer = responseError(400, { code: 'E_SIGNER_CHANGED', message: 'm', details: { signer_public_key: 'k'.repeat(4) } }, req);
    expect(signer).toMatchObject({ code: 'E_SIGNER_CHANGED', hint: expect.stringContaining('ctxpkg registry key add a kkkk --registry http://r/api'), details: { signer_public_key: 'kkkk' } });
    const ro = responseError(400, { code: 'E_FORBIDDEN', message: 'this is a read-only token (ctxr_)', hint: 'ask an owner' }, req);
    expect(ro).toMatchObject({ code: 'E_FORBIDDEN', hint: 'ask an owner' });
    // The reference contract's 400 for a read token is a permission refusal, said as one (issue 12 item 4).
    expect(ro.message).toBe('registry http://r/api does not allow you to publish @a/b@1.0.0: this is a read-only token (ctxr_)');
    expect(responseError(401, {}, req).hint).toContain('refused (unknown, revoked or expired)');
    expect(responseError(401, {}, { ...req, sentToken: false }).hint).toContain('no token was sent');
    expect(responseError(409, { code: 'E_VERSION_EXISTS', hint: 'publish 1.0.1', details: { existing_version: '1.0.0' } }, req)).toMatchObject({ hint: 'publish 1.0.1', details: { existing_version: '1.0.0' } });
    expect(responseError(503, {}, req).code).toBe('E_REGISTRY');
  });
  it('says "already exists" once for E_VERSION_EXISTS, and that a 404 may be a private package (issue 13 items 2, 7)', () => {
    const req = { registry: 'http://r/api', what: 'publish @acme/kb@1.0.0', name: '@acme/kb', sentToken: true };
    const exists = responseError(409, { code: 'E_VERSION_EXISTS', message: '@acme/kb@1.0.0 already exists; published versions are immutable' }, req);
    expect(exists.message).toBe('registry http://r/api refused to publish @acme/kb@1.0.0: @acme/kb@1.0.0 already exists; published versions are immutable');
    expect(exists.message.split('already exists')).toHaveLength(2);
    const anonymous = responseError(404, { code: 'E_NOT_FOUND', message: 'package not found' }, { ...req, what: 'read @acme/kb', sentToken: false });
    expect(anonymous.hint).toBe('check the name; if @acme/kb is private, it answers 404 until you log in with a read token of @acme: `ctxpkg login --registry http://r/api --scope @acme` (ask an owner for the token)');
    expect(responseError(404, { code: 'E_NOT_FOUND' }, req).hint).toContain('visible only to tokens of its own namespace (@acme)');
  });
  it('names the cause of a network failure', () => {
    const err = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('getaddrinfo ENOTFOUND x'), { code: 'ENOTFOUND' }) });
    expect(networkCause(err)).toBe('ENOTFOUND');
    expect(networkCause(new TypeError('fetch failed'))).toBe('');
  });
});

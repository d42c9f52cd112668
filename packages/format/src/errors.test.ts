import { describe, expect, it } from 'vitest';
import { CtxpkgError, ERROR_CODES, exitCodeFor, httpStatusFor, isCtxpkgError, errorFromIssues } from './errors.js';

describe('CtxpkgError', () => {
  it('carries a stable code, hint and details, and serializes them', () => {
    const e = new CtxpkgError('E_INTEGRITY', 'content_hash mismatch', {
      hint: 'the file was modified',
      details: { expected: 'aa', found: 'bb' },
    });
    expect(isCtxpkgError(e)).toBe(true);
    expect(e.family).toBe('integrity');
    expect(e.toJSON()).toEqual({
      code: 'E_INTEGRITY',
      message: 'content_hash mismatch',
      hint: 'the file was modified',
      details: { expected: 'aa', found: 'bb' },
    });
  });

  it('maps families to HTTP statuses and exit codes in one table', () => {
    expect(httpStatusFor('E_AUTH')).toBe(401);
    expect(httpStatusFor('E_FORBIDDEN')).toBe(403);
    expect(httpStatusFor('E_NOT_FOUND')).toBe(404);
    expect(httpStatusFor('E_VERSION_EXISTS')).toBe(409);
    expect(httpStatusFor('E_TOO_LARGE')).toBe(413);
    expect(httpStatusFor('E_SIGNATURE_INVALID')).toBe(400);
    expect(httpStatusFor('E_NO_SUCH_CODE')).toBe(500);
    expect(exitCodeFor('E_USAGE')).toBe(2);
    expect(exitCodeFor('E_CONFIG')).toBe(78); // sysexits.h EX_CONFIG
    expect(exitCodeFor('E_INTEGRITY')).toBe(1);
    expect(Object.keys(ERROR_CODES).every((c) => /^E_[A-Z0-9_]+$/.test(c))).toBe(true);
  });

  it('builds one error from many issues, keeping all of them', () => {
    const e = errorFromIssues([
      { path: 'manifest.name', code: 'E_INVALID_NAME', message: 'bad name' },
      { path: 'manifest.version', code: 'E_INVALID_VERSION', message: 'bad version' },
    ]);
    expect(e.code).toBe('E_INVALID_NAME');
    expect(e.message).toContain('2 problems');
    expect((e.details?.issues as unknown[]).length).toBe(2);
  });
});

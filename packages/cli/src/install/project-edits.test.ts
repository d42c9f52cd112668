import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RegistrySettings } from '../config.js';
import { defaultManifest } from '../project.js';
import { dropPins, ensureGitignore, pinNames, userConfigBindings } from './project-edits.js';

describe('pins of removed packages', () => {
  it('drops pins naming a removed package or its nodes, keeps the rest and the member order', () => {
    const extra = { context: { max_bytes: 100, pins: ['@acme/kb#n1', '@acme/style', '@acme/kbx#n2', '@acme/kb'], sync: { auto: true } } };
    const r = dropPins(extra, ['@acme/kb']);
    expect(r.dropped).toEqual(['@acme/kb', '@acme/kb#n1']);
    expect(r.extra.context).toEqual({ max_bytes: 100, pins: ['@acme/style', '@acme/kbx#n2'], sync: { auto: true } });
    expect(Object.keys(r.extra.context as object)).toEqual(['max_bytes', 'pins', 'sync']);
    expect(extra.context.pins).toHaveLength(4); // input untouched
    expect(dropPins({}, ['@acme/kb']).dropped).toEqual([]);
    expect(dropPins({ context: { pins: ['@acme/style'] } }, ['@acme/kb']).dropped).toEqual([]);
  });
  it('pinNames matches the package and its qualified node ids only', () => {
    expect(pinNames('@acme/kb', '@acme/kb')).toBe(true);
    expect(pinNames('@acme/kb#a:1', '@acme/kb')).toBe(true);
    expect(pinNames('@acme/kbx', '@acme/kb')).toBe(false);
  });
});

describe('scope bindings from the user config', () => {
  const s = (user: RegistrySettings['user'], env: RegistrySettings['env'] = {}): RegistrySettings => ({ project: { registries: {} }, user, env });
  it('binds scopes resolved through the user config (scope binding or default), not env or project ones', () => {
    const m = defaultManifest();
    expect(userConfigBindings(['@acme/a', '@acme/b', '@zed/c'], m, s({ registries: { '@acme': 'http://u/api' }, tokens: {} }, { CTXPKG_REGISTRY: 'http://e/api' }))).toEqual([
      { scope: '@acme', registry: 'http://u/api', from: 'your user config' },
    ]);
    expect(userConfigBindings(['@acme/a'], m, s({ registry: 'http://ud/api', registries: {}, tokens: {} }))).toEqual([{ scope: '@acme', registry: 'http://ud/api', from: 'your user config' }]);
    expect(userConfigBindings(['@acme/a'], m, s({ registries: {}, tokens: {} }, { CTXPKG_REGISTRY: 'http://e/api' }))).toEqual([]);
    const bound = { ...m, registries: { '@acme': 'http://p/api' } };
    expect(userConfigBindings(['@acme/a'], bound, s({ registries: { '@acme': 'http://u/api' }, tokens: {} }))).toEqual([]);
  });
});

describe('.gitignore', () => {
  it('adds .ctxpkg/ once, keeping the existing lines', () => {
    const d = mkdtempSync(join(tmpdir(), 'ctxpkg-gi-'));
    expect(ensureGitignore(d)).toBe(true);
    expect(readFileSync(join(d, '.gitignore'), 'utf8')).toBe('.ctxpkg/\n');
    expect(ensureGitignore(d)).toBe(false);
    writeFileSync(join(d, '.gitignore'), 'node_modules');
    expect(ensureGitignore(d)).toBe(true);
    expect(readFileSync(join(d, '.gitignore'), 'utf8')).toBe('node_modules\n.ctxpkg/\n');
    writeFileSync(join(d, '.gitignore'), '/.ctxpkg\n');
    expect(ensureGitignore(d)).toBe(false);
  });
});

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { putArtifact, artifactPath } from '../store.js';
import { installFingerprint, tryNoopInstall, writeInstallState } from './noop.js';
import { sealKey } from './seal.js';

function project(): { root: string; deps: { cwd: string; env: Record<string, string>; homeDir: string } } {
  const root = mkdtempSync(join(tmpdir(), 'ctxpkg-noop-'));
  const sha = putArtifact(root, new TextEncoder().encode('package bytes'));
  writeFileSync(join(root, 'ctxpkg.json'), '{"dependencies":{"@a/b":"^1.0.0"}}\n');
  writeFileSync(join(root, 'ctxpkg.lock'), JSON.stringify({ packages: { '@a/b': { artifact_sha256: sha } } }));
  mkdirSync(join(root, '.ctxpkg', 'graph'), { recursive: true });
  writeFileSync(join(root, '.ctxpkg', 'graph', 'merged.json'), '{}');
  const deps = { cwd: join(root), env: { CTXPKG_HOME: join(root, '.home') }, homeDir: root };
  writeInstallState(root, deps, { packages: 1, nodes: 3, edges: 1, conflicts: 0, superseded: 0 });
  return { root, deps };
}

describe('no-op install fast path', () => {
  it('answers up to date when nothing changed', () => {
    const { deps } = project();
    expect(tryNoopInstall(deps)).toEqual(['up to date', '1 package installed, 0 downloaded, no network', 'merged graph: 3 nodes (0 added), 1 edges, 0 conflicts, 0 superseded']);
  });
  it('takes the full path when an input, the environment or the store changed', () => {
    let p = project();
    writeFileSync(join(p.root, 'ctxpkg.json'), '{"dependencies":{"@a/b":"^2.0.0"}}\n');
    expect(tryNoopInstall(p.deps)).toBeUndefined();
    p = project();
    expect(tryNoopInstall({ ...p.deps, env: { ...p.deps.env, CTXPKG_REGISTRY: 'http://other' } })).toBeUndefined();
    p = project();
    const sha = Object.values(JSON.parse(readFileSync(join(p.root, 'ctxpkg.lock'), 'utf8')).packages as Record<string, { artifact_sha256: string }>)[0].artifact_sha256;
    chmodSync(artifactPath(p.root, sha), 0o644);
    writeFileSync(artifactPath(p.root, sha), 'tampered');
    expect(tryNoopInstall(p.deps)).toBeUndefined();
    p = project();
    writeFileSync(join(p.root, '.ctxpkg', 'txn.json'), '{}');
    expect(tryNoopInstall(p.deps)).toBeUndefined();
  });
  it('never trusts a state file it did not seal: one committed by another user, or an unsealed one with the right fingerprint', () => {
    const p = project();
    // Another user (another sealing key) runs install in the same tree: the state does not open.
    const other = { ...p.deps, env: { CTXPKG_HOME: join(p.root, '.other-home') } };
    expect(sealKey(other, true)).toBeDefined();
    expect(tryNoopInstall(other)).toBeUndefined();
    // The fingerprint is predictable from committed files; an unsealed state with it is refused.
    const forged = JSON.stringify({ format: 'ctxpkg-install-state-v1', fingerprint: installFingerprint(p.root, p.deps), summary: { packages: 1, nodes: 0, edges: 0, conflicts: 0, superseded: 0 } });
    writeFileSync(join(p.root, '.ctxpkg', 'install-state.json'), forged);
    expect(tryNoopInstall(p.deps)).toBeUndefined();
  });
});

/**
 * The user's signing key for `create` (and `quickstart`): loaded from `--key`, `CTXPKG_KEY_FILE`
 * or the default key path (paths.ts), created on first use with mode 0600. The file format is the
 * reference's (FORMAT-FACTS §4 "Key file"): 64 hex characters of the Ed25519 seed.
 */
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CtxpkgError, formatKeyFile, generateSeed, keyFingerprint, parseKeyFile, publicKeyFromSeed } from '@ctxpkg/format';
import type { CliDeps } from './deps.js';
import { writeFileAtomic } from './fsutil.js';
import { defaultKeyPath } from './paths.js';

export interface SigningKey {
  seed: Uint8Array;
  /** 64 lowercase hex. */
  publicKey: string;
  /** `keyFingerprint(publicKey)`. */
  fingerprint: string;
  path: string;
  /** True when this call created the key file. */
  created: boolean;
}

/**
 * Load the signing key, creating it when it does not exist and `create` is true.
 * Throws `E_KEY` for a corrupt file, or when it is missing and `create` is false.
 */
export function loadSigningKey(deps: Pick<CliDeps, 'env' | 'homeDir' | 'cwd'>, explicit?: string, create = true): SigningKey {
  const fromEnv = deps.env.CTXPKG_KEY_FILE;
  const path = explicit ? resolve(deps.cwd, explicit) : fromEnv && fromEnv.trim() !== '' ? resolve(deps.cwd, fromEnv) : defaultKeyPath(deps);
  let seed: Uint8Array;
  let created = false;
  if (existsSync(path)) {
    seed = parseKeyFile(readFileSync(path, 'utf8'));
  } else {
    if (!create || explicit) {
      // An explicitly named key must exist: creating it silently would hide a typo.
      throw new CtxpkgError('E_KEY', `signing key file not found: ${path}`, { hint: 'create one with `ctxpkg keygen`' });
    } else {
      seed = generateSeed();
      writeFileAtomic(path, formatKeyFile(seed), { mode: 0o600 });
      chmodSync(path, 0o600);
      created = true;
    }
  }
  const publicKey = publicKeyFromSeed(seed);
  return { seed, publicKey, fingerprint: keyFingerprint(publicKey), path, created };
}

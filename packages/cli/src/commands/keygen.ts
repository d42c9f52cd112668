/**
 * `ctxpkg keygen [--out path] [--force]`: create an Ed25519 signing key (FORMAT-FACTS §4 "Key
 * file": the 32-byte seed as 64 lowercase hex characters, no newline, mode 0600) and print the
 * public key and its fingerprint (spec/format.md "Keys"). Default location: `defaultKeyPath`
 * (`<user dir>/keys/ctxpkg-ed25519.key`). An existing key is never replaced without `--force`:
 * a new key is a new publisher identity.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';
import { defaultKeyPath } from '../paths.js';


export interface KeygenOptions {
  /** Where to write the key (default: the user's default key path). */
  out?: string;
  /** Replace an existing key file. */
  force?: boolean;
}

/**
 * Create and save a key. Throws `E_EXISTS` (key present, no `--force`; the message shows that
 * key's fingerprint and public key) or `E_IO`. The seed is never printed; the result carries the
 * path, public key and fingerprint.
 */
export async function runKeygen(opts: KeygenOptions, deps: CliDeps): Promise<CommandResult> {
  const f = await import('@ctxpkg/format');
  const { writeFileAtomic } = await import('../fsutil.js');
  const path = opts.out ? resolve(deps.cwd, opts.out) : defaultKeyPath(deps);
  const existed = existsSync(path);
  if (existed && !opts.force) {
    const { signerLabel } = await import('../signer-label.js');
    const { readFileSync } = await import('node:fs');
    let identity = '';
    let publicKey: string | undefined;
    try {
      publicKey = f.publicKeyFromSeed(f.parseKeyFile(readFileSync(path, 'utf8')));
      identity = `: ${signerLabel(publicKey, { full: true })}`;
    } catch {
      identity = ' (it cannot be read as a key)';
    }
    throw new f.CtxpkgError('E_EXISTS', `a signing key already exists at ${path}${identity}`, {
      hint: 'keep it (it is your publisher identity), or pass --force to replace it with a new key',
      ...(publicKey ? { details: { path, public_key: publicKey, fingerprint: f.keyFingerprint(publicKey) } } : { details: { path } }),
    });
  }
  const seed = f.generateSeed();
  const publicKey = f.publicKeyFromSeed(seed);
  const fingerprint = f.keyFingerprint(publicKey);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileAtomic(path, f.formatKeyFile(seed), { mode: 0o600 });
  seed.fill(0);
  return {
    text: [`wrote signing key ${path} (mode 0600)`, `public key:  ${publicKey}`, `fingerprint: ${fingerprint}`],
    json: { path, public_key: publicKey, fingerprint, replaced: existed },
    ...(existed ? { warnings: ['the previous key was replaced: packages signed with it now have a different publisher identity'] } : {}),
  };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'keygen', 'create an Ed25519 signing key and print its public key and fingerprint')
    .option('--out <path>', 'where to write the key (default: the user key path)')
    .option('--force', 'replace an existing key (a new key is a new publisher identity)')
    .addHelpText('after', examples(['ctxpkg keygen', 'ctxpkg keygen --out ./ci-signing.key']))
    .action(ctx.action(async (opts: KeygenOptions) => runKeygen(opts, ctx.deps)));
}

/**
 * `ctxpkg publish [file]`: verify locally (structure, integrity, signature required, scoped
 * name, strict version), then upload to the registry configured for the package's scope, with a
 * progress bar on a TTY. `--dry-run` runs every local check and uploads nothing.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

export interface PublishOptions {
  registry?: string;
  dryRun?: boolean;
}

/** True when `path` is a regular file (symlinks followed); false for directories and the rest. */
function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The package file to publish: `file` as given, else the only regular `*.ctxpkg` file in `cwd`
 * (the project's `.ctxpkg/` directory is not a package). Returns the absolute path and the label
 * to show. Throws `E_USAGE` when there is none or several.
 */
export function pickFile(cwd: string, file?: string): { path: string; label: string } {
  if (file) return { path: resolve(cwd, file), label: file };
  const found = readdirSync(cwd).filter((f) => f.endsWith('.ctxpkg') && isRegularFile(join(cwd, f))).sort();
  if (found.length !== 1) {
    throw new CtxpkgError('E_USAGE', found.length === 0 ? 'no .ctxpkg file given and none in the current directory' : `several .ctxpkg files here (${found.join(', ')}); name one`, {
      hint: found.length === 0 ? 'ctxpkg publish <file.ctxpkg> (create one with `ctxpkg create --name @ns/name --from AGENTS.md`)' : 'ctxpkg publish <file.ctxpkg>',
    });
  }
  return { path: resolve(cwd, found[0]), label: found[0] };
}

export async function runPublish(file: string | undefined, opts: PublishOptions, deps: CliDeps): Promise<CommandResult> {
  const { readPackage, parsePackageName, validateVersion } = await import('@ctxpkg/format');
  const { registryFor, tokenFor } = await import('../config.js');
  const { sha256Bytes } = await import('../store.js');
  const { createProgress } = await import('../progress.js');
  const { readPackageFile, withFileContext } = await import('../package-file.js');
  const { signerLabel } = await import('../signer-label.js');
  const { path, label } = pickFile(deps.cwd, file);
  const bytes = readPackageFile(path, label);
  let pkg: Awaited<ReturnType<typeof readPackage>>;
  try {
    pkg = await readPackage(bytes, { requireSignature: true });
  } catch (err) {
    throw withFileContext(err, label, bytes);
  }
  const name = pkg.manifest.name;
  const version = pkg.manifest.version;
  parsePackageName(name);
  validateVersion(version);
  const { openSession } = await import('../session.js');
  const session = openSession(deps, opts.registry);
  const registry = registryFor(name, session.settings);
  const sha = sha256Bytes(bytes);
  const signer = signerLabel(pkg.signer);
  if (opts.dryRun) {
    return {
      text: [`${name}@${version} passed every local check (structure, integrity, signature; signed by ${signer}); would publish ${bytes.length} bytes to ${registry} — dry run, nothing uploaded`],
      json: { name, version, registry, bytes: bytes.length, artifact_sha256: sha, signer: pkg.signer ?? null, dry_run: true },
    };
  }
  if (!tokenFor(registry, session.settings)) {
    throw new CtxpkgError('E_AUTH', `no token for ${registry}`, {
      hint: `run \`ctxpkg login --registry ${registry}\`, or set CTXPKG_TOKEN together with CTXPKG_REGISTRY=${registry}`,
    });
  }
  const bar = createProgress(deps.stderr, `publishing ${name}@${version}`);
  const answer = await session.client.publish(registry, name, version, bytes, deps.stderr.isTTY ? { onProgress: (d, t) => bar.update(d, t) } : {});
  bar.done();
  const remoteSha = typeof answer.artifact_sha256 === 'string' ? answer.artifact_sha256 : sha;
  if (remoteSha !== sha) {
    throw new CtxpkgError('E_ARTIFACT_CHECKSUM', `the registry stored ${remoteSha} but the file hashes to ${sha}`);
  }
  return {
    text: [`published ${name}@${version} to ${registry}`, `artifact sha256 ${sha}, signed by ${signer}`],
    json: { name, version, registry, bytes: bytes.length, artifact_sha256: sha, signer: pkg.signer ?? null, registry_answer: answer },
  };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'publish [file]', 'publish a signed .ctxpkg to the registry of its scope')
    .option('--registry <url>', 'registry for packages whose scope has no registry configured')
    .option('--dry-run', 'run every local check without uploading')
    .addHelpText('after', examples(['ctxpkg publish acme-auth-context-1.0.0.ctxpkg', 'CTXPKG_REGISTRY=https://r.example/api CTXPKG_TOKEN=ctxp_… ctxpkg publish', 'ctxpkg publish --dry-run']))
    .action(ctx.action(async (file: string | undefined, opts: PublishOptions) => runPublish(file, opts, ctx.deps)));
}

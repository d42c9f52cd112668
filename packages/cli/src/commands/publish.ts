/**
 * `ctxpkg publish [file]`: verify locally (structure, integrity, signature required, scoped
 * name, strict version), then upload to the registry configured for the package's scope, with a
 * progress bar on a TTY. `--dry-run` runs every local check and uploads nothing.
 *
 * Visibility follows npm's rule for scoped packages (every ctxpkg package is scoped): the first
 * publish of a package makes it **private** (visible to tokens of its namespace) unless
 * `--public`; later versions keep the package's visibility, and `--public`/`--private` that
 * disagree with it are refused by the registry (`E_VISIBILITY`) — an owner changes it with
 * `ctxpkg registry visibility`. A manifest `visibility` (`ctxpkg create --private`) counts as the
 * flag; a flag contradicting it is `E_USAGE` before anything is sent.
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
  /** `--public`: a new package is public (the registry's default is private). */
  public?: boolean;
  /** `--private`: say so explicitly (refused when the package is public). */
  private?: boolean;
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
  const { registryFor, scopeOfName, tokenFor } = await import('../config.js');
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
  if (opts.public && opts.private) throw new CtxpkgError('E_USAGE', '--public and --private exclude each other');
  const flag: 'public' | 'private' | undefined = opts.public ? 'public' : opts.private ? 'private' : undefined;
  const declared = pkg.manifest.visibility === 'public' || pkg.manifest.visibility === 'private' ? pkg.manifest.visibility : undefined;
  if (flag && declared && flag !== declared) {
    throw new CtxpkgError('E_USAGE', `--${flag} contradicts the package: its manifest declares visibility ${declared}`, {
      hint: `publish without --${flag} (${label} is ${declared}), or create the package again${declared === 'private' ? ' without --private' : ''}`,
    });
  }
  const asked = flag ?? declared;
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
  const scope = scopeOfName(name) as string;
  if (!tokenFor(registry, session.settings, scope)) {
    throw new CtxpkgError('E_AUTH', `no token for ${scope} on ${registry}`, {
      hint: `run \`ctxpkg login --registry ${registry} --scope ${scope}\` with a publish token of ${scope}, or set CTXPKG_TOKEN together with CTXPKG_REGISTRY=${registry}`,
    });
  }
  const bar = createProgress(deps.stderr, `publishing ${name}@${version}`);
  const answer = await session.client.publish(registry, name, version, bytes, {
    ...(deps.stderr.isTTY ? { onProgress: (d: number, t: number) => bar.update(d, t) } : {}),
    ...(flag ? { visibility: flag } : {}),
  });
  bar.done();
  const remoteSha = typeof answer.artifact_sha256 === 'string' ? answer.artifact_sha256 : sha;
  if (remoteSha !== sha) {
    throw new CtxpkgError('E_ARTIFACT_CHECKSUM', `the registry stored ${remoteSha} but the file hashes to ${sha}`);
  }
  const visibility = answer.visibility === 'public' || answer.visibility === 'private' ? answer.visibility : undefined;
  const ns = /^@([^/]+)\//.exec(name)?.[1] as string;
  const text = [`published ${name}@${version} to ${registry}`, `artifact sha256 ${sha}, signed by ${signer}`];
  if (visibility === 'private') {
    text.push(
      `private: only tokens of @${ns} can see and install it${asked === undefined ? ' (new packages are private unless `ctxpkg publish --public`)' : ''};` +
        ` teammates install with a read token of @${ns} (an owner of @${ns} makes one: \`ctxpkg registry token create --namespace ${ns} --scope read --registry ${registry}\`), then \`ctxpkg login --registry ${registry} --scope @${ns}\`;` +
        ` to open it: \`ctxpkg registry visibility ${name} public --registry ${registry}\``,
    );
  } else if (visibility === 'public') {
    text.push('public: anyone who can reach the registry can install it');
  }
  return {
    text,
    json: { name, version, registry, bytes: bytes.length, artifact_sha256: sha, signer: pkg.signer ?? null, visibility: visibility ?? null, registry_answer: answer },
  };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'publish [file]', 'publish a signed .ctxpkg to the registry of its scope')
    .option('--registry <url>', 'registry for packages whose scope has no registry configured')
    .option('--dry-run', 'run every local check without uploading')
    .option('--public', 'a new package is public (default: private, visible only to tokens of its namespace)')
    .option('--private', 'a new package is private (the default; refused for a public package)')
    .addHelpText('after', examples(['ctxpkg publish acme-auth-context-1.0.0.ctxpkg', 'ctxpkg publish --public   # a package anyone may install', 'CTXPKG_REGISTRY=https://r.example/api CTXPKG_TOKEN=ctxp_… ctxpkg publish', 'ctxpkg publish --dry-run']) +
      '\nA package is private from its first publish unless --public (npm\'s rule for scoped packages); its later\nversions keep its visibility. An owner changes it with `ctxpkg registry visibility @ns/name public|private`.\n')
    .action(ctx.action(async (file: string | undefined, opts: PublishOptions) => runPublish(file, opts, ctx.deps)));
}

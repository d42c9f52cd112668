/**
 * `ctxpkg init`: write ctxpkg.json (no dependencies, signatures required) and add `.ctxpkg/` to
 * .gitignore. Idempotent: an existing ctxpkg.json is kept (and reported), .gitignore gets the
 * line once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';
import { PROJECT_FILES } from '../paths.js';
import { CtxpkgError } from '@ctxpkg/format/errors';

export interface InitOptions {
  registry?: string;
  /** Scopes or packages delivered as instructions (`trust.instructions`, spec/pack.md §11). */
  trust?: string[];
}

/** Create the project files in `deps.cwd`. */
export async function runInit(opts: InitOptions, deps: CliDeps): Promise<CommandResult> {
  const { normalizeRegistryUrl } = await import('../config.js');
  const { writeFileAtomic } = await import('../fsutil.js');
  const { defaultManifest, serializeManifest, validateTrustEntry } = await import('../project.js');
  const root = resolve(deps.cwd);
  const manifestPath = join(root, PROJECT_FILES.manifest);
  const created = !existsSync(manifestPath);
  const trust = [...new Set(opts.trust ?? [])].sort();
  for (const e of trust) {
    try {
      validateTrustEntry(e);
    } catch (err) {
      throw new CtxpkgError('E_USAGE', `--trust ${JSON.stringify(e)} is neither a scope (@acme) nor a package name (@acme/rules): ${(err as Error).message}`);
    }
  }
  if (created) {
    const m = defaultManifest();
    if (opts.registry) m.registry = normalizeRegistryUrl(opts.registry);
    m.trust.instructions = trust;
    writeFileAtomic(manifestPath, serializeManifest(m));
  } else if (trust.length > 0) {
    const { editManifest } = await import('../manifest-edit.js');
    await editManifest(root, (m) => {
      m.trust.instructions = [...new Set([...m.trust.instructions, ...trust])].sort();
    });
  }
  const gitignore = join(root, '.gitignore');
  const current = existsSync(gitignore) ? readFileSync(gitignore, 'utf8') : '';
  const has = current.split(/\r?\n/).some((l) => ['.ctxpkg', '.ctxpkg/', '/.ctxpkg', '/.ctxpkg/'].includes(l.trim()));
  if (!has) writeFileAtomic(gitignore, current + (current === '' || current.endsWith('\n') ? '' : '\n') + '.ctxpkg/\n');
  return {
    text: [
      created ? `created ${PROJECT_FILES.manifest} (signatures required)` : `${PROJECT_FILES.manifest} already exists; kept`,
      ...(trust.length > 0 ? [`trusted ${trust.join(', ')}: their signed packages, with signers pinned in ctxpkg.lock, are delivered to agents as instructions ("trust.instructions")`] : []),
      has ? '.gitignore already ignores .ctxpkg/' : 'added .ctxpkg/ to .gitignore',
      'commit ctxpkg.json and ctxpkg.lock; .ctxpkg/ is rebuilt by `ctxpkg install`',
    ],
    json: { root, manifest: manifestPath, created, gitignore_updated: !has, trust },
  };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'init', 'create ctxpkg.json in the current directory and ignore .ctxpkg/')
    .option('--registry <url>', 'default registry written into ctxpkg.json')
    .option('--trust <scopes...>', "scopes (@acme) or packages whose signed context is the project's own instructions (trust.instructions)")
    .addHelpText('after', examples(['ctxpkg init', 'ctxpkg init --registry https://registry.example.com/api', 'ctxpkg init --trust @acme']))
    .action(ctx.action(async (opts: InitOptions) => runInit(opts, ctx.deps)));
}

/**
 * `ctxpkg init`: write ctxpkg.json (no dependencies, signatures required) and add `.ctxpkg/` to
 * .gitignore. Idempotent: an existing ctxpkg.json is kept (and reported), .gitignore gets the
 * line once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { normalizeRegistryUrl } from '../config.js';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';
import { writeFileAtomic } from '../fsutil.js';
import { PROJECT_FILES } from '../paths.js';
import { defaultManifest, serializeManifest } from '../project.js';

export interface InitOptions {
  registry?: string;
}

/** Create the project files in `deps.cwd`. */
export async function runInit(opts: InitOptions, deps: CliDeps): Promise<CommandResult> {
  const root = resolve(deps.cwd);
  const manifestPath = join(root, PROJECT_FILES.manifest);
  const created = !existsSync(manifestPath);
  if (created) {
    const m = defaultManifest();
    if (opts.registry) m.registry = normalizeRegistryUrl(opts.registry);
    writeFileAtomic(manifestPath, serializeManifest(m));
  }
  const gitignore = join(root, '.gitignore');
  const current = existsSync(gitignore) ? readFileSync(gitignore, 'utf8') : '';
  const has = current.split(/\r?\n/).some((l) => ['.ctxpkg', '.ctxpkg/', '/.ctxpkg', '/.ctxpkg/'].includes(l.trim()));
  if (!has) writeFileAtomic(gitignore, current + (current === '' || current.endsWith('\n') ? '' : '\n') + '.ctxpkg/\n');
  return {
    text: [
      created ? `created ${PROJECT_FILES.manifest} (signatures required)` : `${PROJECT_FILES.manifest} already exists; kept`,
      has ? '.gitignore already ignores .ctxpkg/' : 'added .ctxpkg/ to .gitignore',
      'commit ctxpkg.json and ctxpkg.lock; .ctxpkg/ is rebuilt by `ctxpkg install`',
    ],
    json: { root, manifest: manifestPath, created, gitignore_updated: !has },
  };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'init', 'create ctxpkg.json in the current directory and ignore .ctxpkg/')
    .option('--registry <url>', 'default registry written into ctxpkg.json')
    .addHelpText('after', examples(['ctxpkg init', 'ctxpkg init --registry https://registry.example.com/api']))
    .action(ctx.action(async (opts: InitOptions) => runInit(opts, ctx.deps)));
}

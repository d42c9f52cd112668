/**
 * `ctxpkg trust add|rm|ls`: the scopes and packages whose context is delivered as the project's
 * own instructions (`trust.instructions` in ctxpkg.json, spec/pack.md §11 "Trust"). A listed
 * package is delivered outside the untrusted fence only when it is signed, verified by this
 * user's ctxpkg and its signer is pinned in ctxpkg.lock; `ls` says which are and why not.
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

async function edit(entries: string[], add: boolean, deps: CliDeps): Promise<CommandResult> {
  const { validateTrustEntry } = await import('../project.js');
  const { editManifest } = await import('../manifest-edit.js');
  for (const e of entries) {
    try {
      validateTrustEntry(e);
    } catch (err) {
      throw new CtxpkgError('E_USAGE', `${JSON.stringify(e)} is neither a scope (@acme) nor a package name (@acme/rules): ${(err as Error).message}`);
    }
  }
  const { result } = await editManifest(deps.cwd, (m) => {
    const before = new Set(m.trust.instructions);
    const next = new Set(before);
    for (const e of entries) add ? next.add(e) : next.delete(e);
    m.trust.instructions = [...next].sort();
    return { changed: entries.filter((e) => before.has(e) !== add), unchanged: entries.filter((e) => before.has(e) === add), list: m.trust.instructions };
  });
  const text = [
    ...result.changed.map((e) => (add ? `trusted ${e}: its signed, pinned packages are delivered as instructions` : `no longer trusted: ${e}`)),
    ...result.unchanged.map((e) => (add ? `${e} was already trusted` : `${e} was not in "trust.instructions"`)),
    `"trust.instructions": [${result.list.map((e) => JSON.stringify(e)).join(', ')}] in ctxpkg.json; run \`ctxpkg sync\` to update the agent files`,
  ];
  return { text, json: { instructions: result.list, changed: result.changed } };
}

async function list(deps: CliDeps): Promise<CommandResult> {
  const { findProjectRoot, readManifest } = await import('../project.js');
  const { loadProjectContext } = await import('../targets/index.js');
  const { root } = findProjectRoot(deps.cwd);
  const m = readManifest(root);
  const project = loadProjectContext(deps, { requireGraph: false });
  const text = m.trust.instructions.length === 0 ? ['no scopes or packages trusted ("trust.instructions" is empty): all installed context is fenced as reference data'] : [`trusted: ${m.trust.instructions.join(', ')}`];
  for (const d of project.trust) {
    if (!d.listed) continue;
    text.push(d.trusted ? `  ${d.package}@${d.version}: delivered as instructions (signer ${d.signer?.slice(0, 16)}… pinned in ctxpkg.lock)` : `  ${d.package}@${d.version}: stays fenced — ${d.reason}`);
  }
  return { text, json: { instructions: m.trust.instructions, packages: project.trust } };
}

export function register(program: Command, ctx: CommandContext): void {
  const trust = program.command('trust').description("choose which scopes or packages are the project's own instructions (trust.instructions)");
  ctx
    .command(trust, 'add <entries...>', 'deliver the signed, pinned packages of these scopes (@acme) or packages (@acme/rules) as instructions')
    .addHelpText('after', examples(['ctxpkg trust add @acme', 'ctxpkg trust add @acme/rules']))
    .action(ctx.action(async (entries: string[]) => edit(entries, true, ctx.deps)));
  ctx
    .command(trust, 'rm <entries...>', 'stop delivering these scopes or packages as instructions (they go back inside the untrusted fence)')
    .addHelpText('after', examples(['ctxpkg trust rm @acme']))
    .action(ctx.action(async (entries: string[]) => edit(entries, false, ctx.deps)));
  ctx
    .command(trust, 'ls', 'list the trusted scopes and packages, and which installed packages are delivered as instructions (and why not)')
    .addHelpText('after', examples(['ctxpkg trust ls', 'ctxpkg trust ls --json']))
    .action(ctx.action(async () => list(ctx.deps)));
}

/**
 * `ctxpkg trust add|rm|ls`: the scopes and packages whose context is delivered as the project's
 * own instructions (`trust.instructions` in ctxpkg.json, spec/pack.md §11 "Trust"). A listed
 * package is delivered outside the untrusted fence only when it is signed, verified by this
 * user's ctxpkg and its signer is pinned in ctxpkg.lock; `ls` lists every installed package with
 * its state: delivered as instructions, fenced although listed (and why), or fenced as not listed
 * (`--json`: `packages`, every one with `listed` and `trusted`).
 * `add` refuses a package that is neither installed nor declared, and a scope that resembles one
 * the project uses (`E_NOT_FOUND`, "did you mean …?"); `add` and `rm` then sync the agent files
 * (`context.sync.auto`), as `pin` does.
 */
import type { Command } from 'commander';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

/**
 * Refuse a `trust add` entry that names nothing this project has (a typo): a package that is
 * neither declared in ctxpkg.json nor in ctxpkg.lock, or a scope no declared or locked package
 * and no `registries` binding uses while a close one does. Throws `E_NOT_FOUND` with the closest
 * names ("did you mean …?"). A scope the project does not use yet and that resembles none of its
 * scopes is allowed (`ctxpkg init --trust @acme` before the first install) and returned as a note.
 */
async function checkKnown(entries: string[], root: string): Promise<string[]> {
  const { readManifest } = await import('../project.js');
  const { readLock } = await import('../install/lockio.js');
  const { closest } = await import('../suggest.js');
  const m = readManifest(root);
  const packages = [...new Set([...Object.keys(m.dependencies), ...readLock(root).state.packages.keys()])].sort();
  const scopes = [...new Set([...packages.map((p) => p.slice(0, p.indexOf('/'))), ...Object.keys(m.registries)])].sort();
  const notes: string[] = [];
  const byHand = 'to list it anyway, add it to "trust.instructions" in ctxpkg.json by hand';
  for (const e of entries) {
    if (e.includes('/')) {
      if (packages.includes(e)) continue;
      const close = closest(e, packages);
      throw new CtxpkgError('E_NOT_FOUND', `${e} is neither installed nor declared in ctxpkg.json${close.length > 0 ? `; did you mean ${close.join(' or ')}?` : ''}`, {
        hint: `install it first (\`ctxpkg install ${e}\`), or trust its scope (\`ctxpkg trust add ${e.slice(0, e.indexOf('/'))}\`), which also covers packages installed later; ${byHand}`,
        details: { entry: e, suggestions: close },
      });
    }
    if (scopes.includes(e)) continue;
    const close = closest(e, scopes);
    if (close.length > 0) {
      throw new CtxpkgError('E_NOT_FOUND', `no installed or declared package is in ${e}; did you mean ${close.join(' or ')}?`, {
        hint: `ctxpkg trust add ${close[0]}; ${byHand}`,
        details: { entry: e, suggestions: close },
      });
    }
    notes.push(`note: no installed or declared package is in ${e} yet; its packages are trusted once installed`);
  }
  return notes;
}

async function edit(entries: string[], add: boolean, opts: { sync?: boolean }, deps: CliDeps): Promise<CommandResult> {
  const { findProjectRoot, validateTrustEntry } = await import('../project.js');
  const { editManifest } = await import('../manifest-edit.js');
  for (const e of entries) {
    try {
      validateTrustEntry(e);
    } catch (err) {
      throw new CtxpkgError('E_USAGE', `${JSON.stringify(e)} is neither a scope (@acme) nor a package name (@acme/rules): ${(err as Error).message}`);
    }
  }
  const { root, exists } = findProjectRoot(deps.cwd);
  const notes = add && exists ? await checkKnown(entries, root) : [];
  const { result } = await editManifest(deps.cwd, (m) => {
    const before = new Set(m.trust.instructions);
    const next = new Set(before);
    for (const e of entries) add ? next.add(e) : next.delete(e);
    m.trust.instructions = [...next].sort();
    return { changed: entries.filter((e) => before.has(e) !== add), unchanged: entries.filter((e) => before.has(e) === add), list: m.trust.instructions };
  });
  // The trust list decides which text is delivered as instructions: bring the agent files up to
  // date now, as `pin` does (`--no-sync` or "context.sync.auto": false leave them).
  const s =
    result.changed.length === 0
      ? { text: [], warnings: [] }
      : opts.sync === false
        ? { text: ['run `ctxpkg sync` to update the agent files'], warnings: [] }
        : await (await import('../sync-after-edit.js')).syncAfterEdit(deps);
  const text = [
    ...result.changed.map((e) => (add ? `trusted ${e}: its signed, pinned packages are delivered as instructions` : `no longer trusted: ${e}`)),
    ...result.unchanged.map((e) => (add ? `${e} was already trusted` : `${e} was not in "trust.instructions"`)),
    ...notes,
    `"trust.instructions": [${result.list.map((e) => JSON.stringify(e)).join(', ')}] in ctxpkg.json`,
    ...s.text,
  ];
  return { text, warnings: s.warnings, json: { instructions: result.list, changed: result.changed } };
}

async function list(deps: CliDeps): Promise<CommandResult> {
  const { findProjectRoot, readManifest } = await import('../project.js');
  const { loadProjectContext } = await import('../targets/index.js');
  const { signerLabel } = await import('../signer-label.js');
  const { root } = findProjectRoot(deps.cwd);
  const m = readManifest(root);
  const project = loadProjectContext(deps, { requireGraph: false });
  const text = m.trust.instructions.length === 0 ? ['no scopes or packages trusted ("trust.instructions" is empty): all installed context is fenced as reference data'] : [`trusted: ${m.trust.instructions.join(', ')}`];
  // Every installed package, each with its state (README: `trust ls` shows each package's state;
  // new-user trial 2, item 3): listed ones delivered or why not, the others fenced as not listed.
  for (const d of project.trust) {
    text.push(
      !d.listed
        ? `  ${d.package}@${d.version}: fenced (not in "trust.instructions")`
        : d.trusted
          ? `  ${d.package}@${d.version}: delivered as instructions (signer ${signerLabel(d.signer)}, pinned in ctxpkg.lock)`
          : `  ${d.package}@${d.version}: stays fenced — ${d.reason}`,
    );
  }
  return { text, json: { instructions: m.trust.instructions, packages: project.trust } };
}

export function register(program: Command, ctx: CommandContext): void {
  const trust = program.command('trust').description("choose which scopes or packages are the project's own instructions (trust.instructions)");
  ctx
    .command(trust, 'add <entries...>', 'deliver the signed, pinned packages of these scopes (@acme) or packages (@acme/rules) as instructions')
    .option('--no-sync', 'only edit ctxpkg.json; do not update the agent files')
    .addHelpText('after', examples(['ctxpkg trust add @acme', 'ctxpkg trust add @acme/rules']) + '\nA package must be installed or declared in ctxpkg.json (a typo is refused with the closest names);\na scope may be trusted before its first install. The agent files are synced afterwards, as after `pin`.\n')
    .action(ctx.action(async (entries: string[], opts: { sync?: boolean }) => edit(entries, true, opts, ctx.deps)));
  ctx
    .command(trust, 'rm <entries...>', 'stop delivering these scopes or packages as instructions (they go back inside the untrusted fence)')
    .option('--no-sync', 'only edit ctxpkg.json; do not update the agent files')
    .addHelpText('after', examples(['ctxpkg trust rm @acme']))
    .action(ctx.action(async (entries: string[], opts: { sync?: boolean }) => edit(entries, false, opts, ctx.deps)));
  ctx
    .command(trust, 'ls', 'list the trusted scopes and packages, and the state of every installed package: delivered as instructions, or fenced (and why)')
    .addHelpText('after', examples(['ctxpkg trust ls', 'ctxpkg trust ls --json']))
    .action(ctx.action(async () => list(ctx.deps)));
}

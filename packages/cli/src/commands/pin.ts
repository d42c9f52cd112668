/**
 * `ctxpkg pin <id|package|heading|query>` and `ctxpkg unpin <pin…>`: edit `context.pins` in
 * ctxpkg.json (spec/pack.md §2 "Pins"). Pinned nodes are delivered first in the always-on block
 * of every agent; a pin that would not fit `context.sync.max_bytes` is refused (nothing written),
 * as sync would refuse it. A pin names a node id, a whole package, or a heading path without the
 * hash suffix (`@acme/rules#AGENTS.md:security` — that section and its children, surviving
 * edits of their text); anything else is a query: `pin` lists the matching nodes to choose from
 * and changes nothing — except a package name (`@ns/name`, or `@ns/name#…`) of a package that is
 * not installed, which is `E_NOT_FOUND` naming it, with the closest installed names, and a heading
 * path (`@ns/name#file:heading`, no hash suffix) that names no heading of an installed package
 * (`E_NOT_FOUND` with its closest headings). After a
 * change the agent files are synced (`context.sync.auto`).
 */
import type { Command } from 'commander';
import type { MergedNode } from '@ctxpkg/format';
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';

/** Matches listed for a query. */
const MAX_MATCHES = 10;

function oneLine(text: string, max = 100): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? t.slice(0, max - 1) + '…' : t;
}

function where(n: MergedNode): string {
  return n.file_path ? `${n.file_path}${n.line_start ? `:${n.line_start}` : ''}` : '';
}

async function syncAfter(deps: CliDeps): Promise<{ text: string[]; warnings: string[] }> {
  const { syncAfterEdit } = await import('../sync-after-edit.js');
  return syncAfterEdit(deps);
}

/** `@ns/name` (the package part of a pin, before any `#`), checked with the format's name rule. */
async function packagePart(arg: string): Promise<string | undefined> {
  const hash = arg.indexOf('#');
  const head = hash === -1 ? arg : arg.slice(0, hash);
  if (!/^@[^/\s]+\/[^/\s]+$/.test(head)) return undefined;
  const { parsePackageName } = await import('@ctxpkg/format/names');
  try {
    parsePackageName(head);
    return head;
  } catch {
    return undefined;
  }
}

/** Run `ctxpkg pin`. */
/**
 * The last line of the successor list: the `ctxpkg pin` command for the best successor (and the
 * `unpin` of the broken pin before it, when it is pinned), each argument as `shellArg` writes it
 * — ids are package text, and the line is run as written; `undefined` (an id that cannot stay one
 * shell argument) names no command for it. `unpin`: `undefined` when the pin is not pinned,
 * `null` when it is but cannot be quoted.
 */
export function pinHint(pin: string | undefined, unpin: string | null | undefined): string {
  const first = pin !== undefined ? `pin one with \`ctxpkg pin ${pin}\`` : 'pin one by its id (`ctxpkg ls --nodes` lists them)';
  if (unpin === undefined) return first;
  return `${first} after ${unpin !== null ? `\`ctxpkg unpin ${unpin}\`` : 'removing the broken pin from "context.pack.pins" in ctxpkg.json'}`;
}

export async function runPin(arg: string, opts: { sync?: boolean }, deps: CliDeps): Promise<CommandResult> {
  const { loadProjectContext, computeDelivery, enabledTargets, findOwnedOutputs, agentTarget } = await import('../targets/index.js');
  const { checkPins, headingPinMatches, buildSearchIndex, rankSuccessors, searchIndex, parseNow, STRUCTURAL_TYPES } = await import('@ctxpkg/format');
  const { shellArg } = await import('@ctxpkg/format/pack/escape');
  const project = loadProjectContext(deps, { requireGraph: true });
  const deliverable = project.graph.nodes.filter((n) => !STRUCTURAL_TYPES.has(n.type));
  const byPackage = new Map<string, MergedNode[]>();
  for (const n of deliverable) byPackage.set(n.package, [...(byPackage.get(n.package) ?? []), n]);
  const named = deliverable.some((n) => n.id === arg) ? deliverable.filter((n) => n.id === arg) : (byPackage.get(arg) ?? headingPinMatches(arg, byPackage));
  if (named.length === 0) {
    // A package name (or `pkg#heading`) of a package that is not installed is a mistake, not a
    // query: say which package and suggest the installed ones it resembles.
    const pkg = await packagePart(arg);
    const installed = [...new Set(project.graph.nodes.map((n) => n.package))].sort();
    if (pkg !== undefined && !installed.includes(pkg)) {
      const { closest } = await import('../suggest.js');
      const close = closest(pkg, installed);
      throw new CtxpkgError('E_NOT_FOUND', `${pkg} is not installed in this project${close.length > 0 ? `; did you mean ${close.join(' or ')}?` : ''}`, {
        hint: installed.length > 0 ? `installed: ${installed.slice(0, 10).join(', ')}${installed.length > 10 ? ', …' : ''} (\`ctxpkg ls\`); to pin ${pkg}, \`ctxpkg install ${pkg}\` first` : `nothing is installed yet; \`ctxpkg install ${pkg}\` first`,
        details: { package: pkg, suggestions: close },
      });
    }
    // An id whose text changed (importer ids end in a hash of the text): its likely successors,
    // ranked as render, sync and the MCP server rank a broken pin's (screen.ts `rankSuccessors`).
    const hash = arg.indexOf('#');
    const own = hash > 0 && arg.includes('~', hash) ? byPackage.get(arg.slice(0, hash)) : undefined;
    if (own) {
      const { readPinTexts } = await import('../targets/pins-record.js');
      const texts = readPinTexts(project.root);
      const { pinned } = checkPins(project.config.pack.pins, project.graph, deliverable, texts);
      const byId = new Map(own.map((n) => [n.id, n]));
      const ranked = rankSuccessors(arg, own, pinned, texts.get(arg)).map((id) => byId.get(id) as MergedNode);
      if (ranked.length > 0) {
        const shown = ranked.slice(0, MAX_MATCHES);
        return {
          text: [
            `no installed node has the id ${arg} (its text probably changed: ids end in a hash of the text) — nothing pinned; likely successors, best first:`,
            ...shown.map((n) => `  ${n.id}  (${n.type}${where(n) ? `, ${where(n)}` : ''}) ${oneLine(n.content)}`),
            pinHint(shellArg(shown[0]!.id), project.config.pack.pins.includes(arg) ? shellArg(arg) ?? null : undefined),
          ],
          json: { pinned: null, query: arg, total: ranked.length, successors: true, matches: shown.map((n) => ({ id: n.id, type: n.type, file_path: n.file_path ?? null, line_start: n.line_start ?? null, content: n.content })) },
        };
      }
    }
    // `pkg#file:heading` of an installed package whose heading path names nothing: a typo in the
    // path, not a query — name the closest headings of that package.
    if (pkg !== undefined && hash > 0 && !arg.includes('~', hash)) {
      const { closest } = await import('../suggest.js');
      const headings = project.graph.nodes.filter((n) => n.package === pkg && n.type === 'section').map((n) => n.id);
      // Typo distance from the length of the last path segment (the part a user types), not of
      // the whole id, whose shared `@ns/name#file:` prefix would make every heading "close".
      const last = arg.slice(hash + 1).split(/[:/]/).pop() ?? '';
      const close = closest(arg, headings, 3, Math.floor(Math.max(last.length, 3) / 3));
      throw new CtxpkgError('E_NOT_FOUND', `${pkg} has no heading ${JSON.stringify(arg.slice(hash + 1))}${close.length > 0 ? `; did you mean ${close.join(' or ')}?` : ''}`, {
        hint: `\`ctxpkg ls --nodes\` lists the headings of ${pkg} (the "(heading: …)" lines); pin one as written there, or the whole package with \`ctxpkg pin ${pkg}\``,
        details: { package: pkg, heading: arg.slice(hash + 1), suggestions: close },
      });
    }
    const now = parseNow(deps.clock().toISOString()).ms;
    const index = buildSearchIndex(project.graph, { nowMs: now });
    const { total, results } = searchIndex(index, arg, MAX_MATCHES);
    if (total === 0) throw new CtxpkgError('E_NOT_FOUND', `no installed node, package or heading is named ${JSON.stringify(arg)}, and no node matches it as a query`, { hint: '`ctxpkg ls --nodes` lists every node id' });
    const matches = results.map((h) => index.docs[h.doc] as MergedNode);
    return {
      text: [
        `no node, package or heading is named ${JSON.stringify(arg)}; ${total} ${total === 1 ? 'node matches' : 'nodes match'} it as a query${total > matches.length ? ` (best ${matches.length} shown)` : ''} — nothing pinned:`,
        ...matches.map((n) => `  ${n.id}  (${n.type}${where(n) ? `, ${where(n)}` : ''}) ${oneLine(n.content)}`),
        'pin one with `ctxpkg pin <id>`, or a whole heading with `ctxpkg pin <package>#<file>:<heading path>` (no hash suffix: it survives edits)',
      ],
      json: { pinned: null, query: arg, total, matches: matches.map((n) => ({ id: n.id, type: n.type, file_path: n.file_path ?? null, line_start: n.line_start ?? null, content: n.content })) },
    };
  }
  if (project.config.pack.pins.includes(arg)) return { text: [`${arg} is already pinned (${named.length} ${named.length === 1 ? 'item' : 'items'})`], json: { pinned: arg, items: named.length, changed: false } };
  // Refuse what sync would refuse: the pinned nodes must fit the always-on block of every target.
  const pins = [...project.config.pack.pins, arg].sort();
  const trial = { ...project, config: { ...project.config, pack: { ...project.config.pack, pins } } };
  const targets = enabledTargets(project.root, project.config.sync, findOwnedOutputs(project.root)).targets.map(agentTarget);
  computeDelivery(trial, targets, deps.clock().toISOString());
  const { editManifest, contextOf } = await import('../manifest-edit.js');
  await editManifest(deps.cwd, (m) => {
    const ctx = contextOf(m);
    ctx.pins = [...new Set([...(Array.isArray(ctx.pins) ? (ctx.pins as string[]) : []), arg])].sort();
  });
  const s = opts.sync === false ? { text: [], warnings: [] } : await syncAfter(deps);
  return {
    text: [`pinned ${arg}: ${named.length} ${named.length === 1 ? 'item is' : 'items are'} delivered first in the always-on block of every agent ("context.pins" in ctxpkg.json)`, ...s.text],
    warnings: s.warnings,
    json: { pinned: arg, items: named.length, ids: named.map((n) => n.id).sort(), changed: true },
  };
}

/** Run `ctxpkg unpin`. */
export async function runUnpin(args: string[], opts: { sync?: boolean }, deps: CliDeps): Promise<CommandResult> {
  const { editManifest, contextOf } = await import('../manifest-edit.js');
  const { result } = await editManifest(deps.cwd, (m) => {
    const ctx = contextOf(m);
    const pins = Array.isArray(ctx.pins) ? (ctx.pins as string[]) : [];
    const unknown = args.filter((a) => !pins.includes(a));
    if (unknown.length > 0) {
      throw new CtxpkgError('E_NOT_FOUND', `not pinned: ${unknown.join(', ')}`, { hint: pins.length > 0 ? `"context.pins" holds: ${pins.join(', ')}` : '"context.pins" is empty', details: { pins } });
    }
    ctx.pins = pins.filter((p) => !args.includes(p));
    return ctx.pins as string[];
  });
  const s = opts.sync === false ? { text: [], warnings: [] } : await syncAfter(deps);
  return { text: [...args.map((a) => `unpinned ${a}`), ...s.text], warnings: s.warnings, json: { unpinned: args, pins: result } };
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'pin <id|package|heading|query>', 'always deliver a node, a heading (and its children) or a package to every agent; a query lists matches')
    .option('--no-sync', 'only edit ctxpkg.json; do not update the agent files')
    .addHelpText(
      'after',
      examples(['ctxpkg pin @acme/rules', 'ctxpkg pin "@acme/rules#AGENTS.md:security"', 'ctxpkg pin "@acme/rules#AGENTS.md:security~3f2a9c1d"', 'ctxpkg pin "idempotency key"']),
    )
    .action(ctx.action(async (arg: string, opts: { sync?: boolean }) => runPin(arg, opts, ctx.deps)));
  ctx
    .command(program, 'unpin <pins...>', 'remove pins from "context.pins" (exactly as listed there)')
    .option('--no-sync', 'only edit ctxpkg.json; do not update the agent files')
    .addHelpText('after', examples(['ctxpkg unpin "@acme/rules#AGENTS.md:security"']))
    .action(ctx.action(async (args: string[], opts: { sync?: boolean }) => runUnpin(args, opts, ctx.deps)));
}

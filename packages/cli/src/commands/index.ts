/**
 * The command table: every top-level command with what `ctxpkg --help` lists for it, and how to
 * load the module whose `register(program, ctx)` builds it. `createProgram` loads only the module
 * of the command being run (bench/startup: `ctxpkg --help` and `ctxpkg <cmd> --help` stay near
 * `ctxpkg --version`); the other commands exist as listing-only stubs built from this table.
 * `usage`, `aliases` and `description` must say what the module registers (program.test.ts
 * compares the stub listing with the fully loaded one). Keep the order of today's `--help`.
 */
import type { Command } from 'commander';
import type { CommandContext } from '../command.js';

/** A command module: `register` adds its command(s) to `program`. */
export interface CommandModule {
  register(program: Command, ctx: CommandContext): void;
}

export interface CommandEntry {
  /** Name and arguments as registered (`install [packages...]`). */
  usage: string;
  aliases?: string[];
  /** The one-line description `--help` lists. */
  description: string;
  /** A group of subcommands without options of its own (`registry`). */
  group?: true;
  /** Loads the module that registers this command (one module may register several). */
  load: () => Promise<CommandModule>;
}

const yank = (): Promise<CommandModule> => import('./yank.js');
const pin = (): Promise<CommandModule> => import('./pin.js');

export const COMMANDS: readonly CommandEntry[] = [
  { usage: 'audit', description: "re-verify ctxpkg.lock against the registries' transparency logs", load: () => import('./audit.js') },
  { usage: 'convert <in> <out>', description: 'convert a package between the JSON bundle and the ZIP form (hashes and signature kept)', load: () => import('./convert.js') },
  { usage: 'create', description: 'create a signed .ctxpkg from AGENTS.md, CLAUDE.md, Cursor/Copilot rules, Markdown or JSON sources', load: () => import('./create.js') },
  { usage: 'info <file|@ns/name[@version]>', description: 'show a package file, or a package on its registry: manifest, layers, counts, signer and every check', load: () => import('./info.js') },
  { usage: 'init', description: 'create ctxpkg.json in the current directory and ignore .ctxpkg/', load: () => import('./init.js') },
  { usage: 'install [packages...]', aliases: ['i'], description: 'install packages (or, with no arguments, exactly the lockfile) into this project', load: () => import('./install.js') },
  { usage: 'keygen', description: 'create an Ed25519 signing key and print its public key and fingerprint', load: () => import('./keygen.js') },
  { usage: 'log', group: true, description: "watch and check registries' transparency logs", load: () => import('./log.js') },
  { usage: 'login', description: 'save a registry token (read from stdin or a prompt) for one registry, or for one scope on it', load: () => import('./login.js') },
  { usage: 'logout', description: "remove a saved registry token: one scope's (--scope) or the registry-wide one", load: () => import('./logout.js') },
  { usage: 'ls [package]', aliases: ['list'], description: 'show the installed dependency tree, or with --nodes every installed node id', load: () => import('./ls.js') },
  { usage: 'mcp', description: 'serve installed context to agents over MCP (stdio): search_context, get_node, get_section, neighbors, render_pack', load: () => import('./mcp.js') },
  { usage: 'outdated', description: 'show declared dependencies with newer versions', load: () => import('./outdated.js') },
  { usage: 'pin <id|package|heading|query>', description: 'always deliver a node, a heading (and its children) or a package to every agent; a query lists matches', load: pin },
  { usage: 'unpin <pins...>', description: 'remove pins from "context.pins" (exactly as listed there)', load: pin },
  { usage: 'publish [file]', description: 'publish a signed .ctxpkg to the registry of its scope', load: () => import('./publish.js') },
  { usage: 'quickstart', description: 'run the whole flow on an embedded registry: AGENTS.md → signed pack → publish → install', load: () => import('./quickstart.js') },
  { usage: 'registry', group: true, description: 'run and administer a ctxpkg registry', load: () => import('./registry.js') },
  { usage: 'render', description: 'compile installed context into a budgeted pack with a receipt', load: () => import('./render.js') },
  { usage: 'search <query>', description: 'search a registry for packages (names, descriptions, tags, node content)', load: () => import('./search.js') },
  { usage: 'sync', description: 'deliver installed context to agent files (AGENTS.md, Claude Code, Cursor, Copilot, Gemini CLI, Windsurf, Kiro, Cline)', load: () => import('./sync.js') },
  { usage: 'trust', group: true, description: "choose which scopes or packages are the project's own instructions (trust.instructions)", load: () => import('./trust.js') },
  { usage: 'uninstall <packages...>', aliases: ['remove'], description: 'remove packages from this project (ctxpkg.json, ctxpkg.lock, store, merged graph)', load: () => import('./uninstall.js') },
  { usage: 'update [packages...]', description: 'update packages to the newest versions their ranges allow', load: () => import('./update.js') },
  { usage: 'verify <files...>', description: 'verify package files: structure, content_hash, sha256, byte_size, signature', load: () => import('./verify.js') },
  { usage: 'why <package>', description: 'explain which declared dependencies pull a package in', load: () => import('./why.js') },
  { usage: 'yank <package@version>', description: 'mark a published version as yanked (not chosen by new installs)', load: yank },
  { usage: 'unyank <package@version>', description: 'undo a yank', load: yank },
];

/** The entry whose name or alias is `word`, if any. */
export function commandEntry(word: string): CommandEntry | undefined {
  return COMMANDS.find((e) => e.usage.split(' ')[0] === word || (e.aliases ?? []).includes(word));
}

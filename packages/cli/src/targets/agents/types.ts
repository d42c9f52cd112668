/**
 * The shape of one agent target of `ctxpkg sync` (spec/pack.md §11, README "Agent targets"). A
 * target is data — paths, frontmatter, documented limits — never a branch in the selector
 * (ARCHITECTURE.md "Delivery: one selection, many encodings"): adding an agent is one module
 * in this folder plus a row in the README table.
 */
import type { SyncTarget } from '@ctxpkg/format';

/** Where an agent's always-on tier goes. */
export type AlwaysOn =
  /** A managed block inside a file the user owns (AGENTS.md, CLAUDE.md, …). */
  | { kind: 'block'; path: string }
  /** A whole file ctxpkg generates (frontmatter + managed block). */
  | { kind: 'file'; path: string; frontmatter: string };

/** How an agent scopes rule files to paths. */
export interface ScopedRules {
  /** Folder of the rule files (POSIX, relative to the project root). */
  dir: string;
  /** File name extension, dot included (`.md`, `.mdc`, `.instructions.md`). */
  ext: string;
  /**
   * The frontmatter (between and including the `---` lines, LF-terminated) of a rule file that
   * applies to `patterns` (already validated: no controls, no line breaks). `title` names the
   * rule set (package and source file); `description` says what it is about: the source rule
   * file's own frontmatter description, else `<package>: <the file's H1>`, when there is one
   * (package text: quote it with `yamlQuote`).
   */
  frontmatter(patterns: readonly string[], title: string, description?: string): string;
  /**
   * Why this agent's frontmatter cannot carry `pattern` without changing what it matches (a comma
   * in a comma-joined field, a character an unquoted value cannot hold), or undefined when it can.
   * Sync leaves such a pattern out of this agent's rule file and warns (`patternsFor` in
   * agents/index.ts); `frontmatter` only ever gets patterns this accepts. Absent: every pattern.
   */
  patternProblem?(pattern: string): string | undefined;
}

/** A documented size limit of the agent, with its source. */
export interface AgentLimit {
  /** What the agent does (README text). */
  text: string;
  /** A hard cap in bytes that ctxpkg's own outputs must stay under (characters ≤ bytes). */
  bytes?: number;
  /**
   * A soft limit: a documented point (in characters, Unicode code points) after which part of the
   * agent stops reading the file while the rest of it reads on (Copilot code review: the first
   * 4,000 characters); `what` says so in a sentence. Not a budget — the selection is shared by
   * every agent — and not a warning: sync notes each file it writes over it, with the setting that
   * would bring it under at every agent's cost (sync.ts `partialReadNotes`).
   */
  partial?: { chars: number; what: string };
  /** Where it is documented. */
  source: string;
}

/**
 * The agent's project-level MCP config file, where `ctxpkg sync` registers the ctxpkg MCP server
 * (spec/pack.md §11 "MCP servers"): one entry named `ctxpkg` in the top-level object `key`.
 */
export interface McpConfigFile {
  /** POSIX path relative to the project root (`.mcp.json`, `.vscode/mcp.json`). */
  path: string;
  /** `json`: strict JSON; `jsonc`: comments and trailing commas allowed (edited keeping them). */
  format: 'json' | 'jsonc';
  /** The top-level object holding servers by name (`mcpServers`; VS Code: `servers`). */
  key: string;
  /** The entry for a stdio server started as `command args…`, in the agent's documented shape. */
  entry(command: string, args: readonly string[]): Record<string, unknown>;
  /** Where the file and its shape are documented. */
  source: string;
  /**
   * What the agent asks of the user before it starts a project server, for sync's note
   * ("Claude Code asks once to approve a project server"); absent when it just starts it.
   */
  firstStart?: string;
}

export interface AgentTarget {
  id: SyncTarget;
  /** Agent names for messages and the README table. */
  agent: string;
  /**
   * Paths (files or folders, POSIX, relative to the root) whose presence means the project uses
   * this agent: enabled by default (`context.sync.targets` absent) when any exists.
   */
  detect: readonly string[];
  /** The always-on tier. */
  alwaysOn: AlwaysOn;
  /**
   * The agent also loads AGENTS.md by itself (documented): when the `agents-md` target is
   * enabled, its always-on tier is that block and `alwaysOn` is not written (no duplicate).
   */
  readsAgentsMd: boolean;
  /**
   * The agent reads AGENTS.md by itself when its project settings say so (Gemini CLI:
   * `context.fileName` lists AGENTS.md): the settings file (JSON with comments) and the test of
   * its parsed value. When it holds, the target counts as `readsAgentsMd` (no block of its own,
   * not even an import line: the agent would read the text twice).
   */
  readsAgentsMdWhen?: { path: string; test(settings: unknown): boolean; source: string };
  /**
   * The always-on file may import AGENTS.md (`@AGENTS.md` on a line of its own, as Claude Code
   * and Gemini CLI allow): then, with `agents-md` enabled, its block holds only that import line
   * (none when the user's own text imports it already), never a second copy of the text.
   */
  importsAgentsMd?: boolean;
  /** Path-scoped rule files; `null` when the agent has no path scoping. */
  scoped: ScopedRules | null;
  /**
   * The project MCP config file; `null` when the agent reads MCP servers only from a user-level
   * file outside the project (sync never writes there; `mcpUserOnly` says where, for the README).
   */
  mcp: McpConfigFile | null;
  /**
   * Where the agent's user-level MCP config is, when it has no project-level one sync could write
   * (`path`, documented at `source`), and how the user registers the ctxpkg server there by hand:
   * `how(command, args)` is one clause naming the agent and giving the exact command or config
   * member for the server started as `command args…` (Codex: `codex mcp add ctxpkg -- ctxpkg mcp`).
   * Sync prints every enabled such agent's clause in one note (`desiredOutputs`, outputs.ts),
   * because the agent files send every reader to the `search_context` tool.
   */
  mcpUserOnly?: { path: string; source: string; how(command: string, args: readonly string[]): string };
  /** Limits of the always-on file and of one rule file. */
  limits: { alwaysOn: AgentLimit; ruleFile?: AgentLimit };
}

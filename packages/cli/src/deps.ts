/**
 * Everything a command may touch outside pure code, injected so that tests can drive the CLI in
 * process (ARCHITECTURE.md "packages/cli"). Only `bin.ts` builds the real one.
 */
export interface OutputStream {
  write(chunk: string): unknown;
  /** True when attached to a terminal: progress bars and colour only then. */
  isTTY?: boolean;
  /** Terminal width in columns when a TTY. */
  columns?: number;
}

export interface CliDeps {
  /** WHATWG fetch; tests pass `(url, init) => app.request(url, init)`. */
  fetch: typeof fetch;
  /** Environment variables (CTXPKG_REGISTRY, CTXPKG_TOKEN, NO_COLOR, CTXPKG_HOME, …). */
  env: Record<string, string | undefined>;
  /** Working directory: the project root is found from here. */
  cwd: string;
  /** The user's home directory (user config and default key live under it, see config). */
  homeDir: string;
  stdout: OutputStream;
  stderr: OutputStream;
  /** Standard input (token for `login`, secrets never echoed). */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** The current time; injected for determinism. */
  clock: () => Date;
}

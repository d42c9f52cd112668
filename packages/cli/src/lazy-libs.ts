/**
 * Libraries that only some runs of a command use, loaded on first use instead of with the module
 * that calls them (issue 16 item 3): `jsonc-parser` (~72 M instructions to load; only when an
 * agent's MCP config or a settings file is read or edited). It is CommonJS in Node — `import
 * 'jsonc-parser'` resolves to the same file (`jsonc-parser/lib/umd/main.js` through `main`) — so
 * `require` gives the very module the static import gave, synchronously, and callers stay
 * synchronous. (`yaml`, ~170 M, was here for sync's unquoted globs; `barePatternProblem` in
 * targets/agents/yaml.ts now decides them without a parser, and sync never loads it.)
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `load()` once, on the first call; the same value afterwards. */
function once<T>(load: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= load());
}

/** The `jsonc-parser` package (parse, parseTree, createScanner, …), loaded on the first call. */
export const jsoncLib: () => typeof import('jsonc-parser') = once(() => require('jsonc-parser') as typeof import('jsonc-parser'));

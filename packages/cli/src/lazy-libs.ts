/**
 * Libraries that only some runs of a command use, loaded on first use instead of with the module
 * that calls them (issue 16 item 3): `yaml` (~170 M instructions to load; sync needs it only to
 * write a path-scoped rule's globs unquoted) and `jsonc-parser` (~72 M; only when an agent's MCP
 * config or a settings file is read or edited). Both are CommonJS in Node — `import 'yaml'` and
 * `import 'jsonc-parser'` resolve to the same files (`yaml/dist/index.js` through its `node`
 * export condition, `jsonc-parser/lib/umd/main.js` through `main`) — so `require` gives the very
 * module the static import gave, synchronously, and callers stay synchronous.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `load()` once, on the first call; the same value afterwards. */
function once<T>(load: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= load());
}

/** The `yaml` package (parse, parseDocument, visit, …), loaded on the first call. */
export const yamlLib: () => typeof import('yaml') = once(() => require('yaml') as typeof import('yaml'));

/** The `jsonc-parser` package (parse, parseTree, createScanner, …), loaded on the first call. */
export const jsoncLib: () => typeof import('jsonc-parser') = once(() => require('jsonc-parser') as typeof import('jsonc-parser'));

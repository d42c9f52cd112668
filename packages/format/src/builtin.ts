/**
 * A Node built-in module, reached by feature probe: `process.getBuiltinModule(id)` (Node ≥ 20.16)
 * — no I/O and no static `node:` import, so the format core still loads in browsers, Deno and
 * older Node, where this returns `undefined` and the caller uses its portable backend. Also
 * `undefined` when the runtime throws for `id`. The members are not checked: callers test the
 * ones they use (`typeof m?.createHash === 'function'`). Used by the SHA-256, CRC-32, inflate,
 * Ed25519, UTF-8 and glob-engine backends.
 */
export function nodeBuiltin<T extends object>(id: `node:${string}`): Partial<T> | undefined {
  try {
    const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
    return typeof get === 'function' ? (get(id) as Partial<T> | undefined) : undefined;
  } catch {
    return undefined;
  }
}

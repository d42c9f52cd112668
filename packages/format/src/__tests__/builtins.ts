/**
 * Tests of the feature probes (builtin.ts `nodeBuiltin`): run code as if the runtime had other
 * Node built-ins, or none (a browser, Deno, Node < 20.16).
 */
import { vi } from 'vitest';

type GetBuiltin = (id: string) => unknown;

/**
 * Run `fn` with `process.getBuiltinModule` replaced — by `replace(real)` when given a function
 * (`real` is the runtime's own, to pass some modules through), else removed — and the module
 * registry reset before and after, so that a module `fn` imports runs its probes again under
 * that runtime. The real function is put back whatever `fn` does.
 */
export async function withBuiltins<T>(replace: ((real: GetBuiltin | undefined) => GetBuiltin) | undefined, fn: () => Promise<T>): Promise<T> {
  const proc = process as { getBuiltinModule?: GetBuiltin };
  const saved = proc.getBuiltinModule;
  proc.getBuiltinModule = replace?.(saved);
  try {
    vi.resetModules();
    return await fn();
  } finally {
    proc.getBuiltinModule = saved;
    vi.resetModules();
  }
}

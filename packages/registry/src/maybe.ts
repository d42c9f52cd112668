/**
 * Values that are ready now or later. The hot read path (`index.json`) is written with
 * `andThen` so that it completes synchronously when every step can answer without waiting (the
 * embedded SQLite store, an anonymous caller, a cached document): @hono/node-server then writes
 * the response in the same tick, without the promise chain and per-request `close` listener it
 * sets up for asynchronous answers. A backend that must wait (PostgreSQL) returns promises and
 * the same code runs asynchronously, with the same results.
 */

export type MaybePromise<T> = T | Promise<T>;

/**
 * `f(v)` now when `v` is a plain value, else `v.then(f)`. A throw from `f` on a plain value
 * propagates synchronously (Hono's dispatcher turns it into the error response like a rejection).
 */
export function andThen<T, U>(v: MaybePromise<T>, f: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}

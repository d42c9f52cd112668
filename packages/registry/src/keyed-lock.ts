/**
 * An in-process lock per key. The publish route holds it per `(namespace, name, precedence key)`
 * so that concurrent publishes of one version queue behind the first: the losers then see the
 * committed version and answer 409 without verifying or writing a blob. It is an optimisation
 * only — correctness across processes rests on the database's unique constraints.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** Run `fn` after every earlier holder of `key` has finished; returns its result. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Number of keys with a holder or waiters (for tests). */
  get size(): number {
    return this.tails.size;
  }
}

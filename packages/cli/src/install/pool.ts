/**
 * Bounded parallelism for downloads: run `fn` over `items` with at most `limit` in flight,
 * results in input order. The first failure stops new work and is thrown after in-flight
 * tasks settle (no dangling promises).
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed: { err: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failed === undefined && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (err) {
        failed ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failed) throw failed.err;
  return out;
}

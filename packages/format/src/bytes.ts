/**
 * Byte-array helpers shared by the format core, the registry and the CLI (pure, no I/O).
 */

/**
 * `chunks` joined into one array of `total` bytes (default: the sum of their lengths). A single
 * chunk of exactly `total` bytes is returned as is (no copy); otherwise one new array is filled.
 * `total` is in bytes and must equal the chunks' combined length (the caller counted them).
 */
export function concatBytes(chunks: readonly Uint8Array[], total = chunks.reduce((n, c) => n + c.length, 0)): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.length === total) return chunks[0]!;
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

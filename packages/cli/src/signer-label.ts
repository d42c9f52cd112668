/**
 * The one way the CLI shows a signer key (spec/format.md §12 "Fingerprint"): the short
 * fingerprint people compare by eye, followed by the start of the public key that the registry,
 * ctxpkg.lock and `verify --json` record in full — `b465:e00a:91c2:0f3d (public key a989b44a01c3f2e7…)`
 * — so a fingerprint shown by one command can be matched to the hex shown by another.
 */
import { keyFingerprint } from '@ctxpkg/format/keys';

/** Hex characters of the public key shown after the fingerprint. */
export const SHOWN_KEY_CHARS = 16;

/**
 * `<fingerprint> (public key <first 16 hex>…)` for a 64-hex Ed25519 public key — with
 * `{ full: true }` the whole key instead of its start (detail views: `info`, `keygen`) —;
 * `unsigned` for `undefined`/`null`/`''`; a malformed key is shown as given (never throws).
 */
export function signerLabel(publicKeyHex: string | null | undefined, opts: { full?: boolean } = {}): string {
  if (publicKeyHex === undefined || publicKeyHex === null || publicKeyHex === '') return 'unsigned';
  try {
    const shown = opts.full ? publicKeyHex : `${publicKeyHex.slice(0, SHOWN_KEY_CHARS)}…`;
    return `${keyFingerprint(publicKeyHex)} (public key ${shown})`;
  } catch {
    return publicKeyHex;
  }
}

/**
 * Signer keysets from the log (spec/transparency.md §6): a namespace's signer keys are the
 * `key-add` / `key-revoke` statements logged for it, in log order. A version is acceptable when its
 * signer key was added, and not revoked since, at a log index below the version's publish entry —
 * so an owner can add a second key (a teammate's, a CI key) without breaking consumers, while a key
 * nobody logged, or one revoked before the publish, is refused.
 */

/** One logged key statement of a namespace. */
export interface LoggedKeyEvent {
  /** Log index of the statement. */
  index: number;
  kind: 'key-add' | 'key-revoke';
  /** Ed25519 public key, 64 lowercase hex. */
  key: string;
}

/** The verdict on a version's signer key. */
export type SignerVerdict =
  | { ok: true; key: string; addedAt: number }
  | { ok: false; key: string; reason: 'unlogged' }
  | { ok: false; key: string; reason: 'revoked'; addedAt: number; revokedAt: number };

/**
 * The status of `key` just before log index `publishIndex` (the version's publish entry), from the
 * namespace's logged key statements (any order). The last statement about the key before the
 * publish decides: `key-add` → ok; `key-revoke` → revoked; none → unlogged.
 */
export function signerStatusAt(events: readonly LoggedKeyEvent[], key: string, publishIndex: number): SignerVerdict {
  const mine = events.filter((e) => e.key === key && e.index < publishIndex).sort((a, b) => a.index - b.index);
  const last = mine[mine.length - 1];
  if (!last) return { ok: false, key, reason: 'unlogged' };
  const added = [...mine].reverse().find((e) => e.kind === 'key-add');
  if (last.kind === 'key-add') return { ok: true, key, addedAt: last.index };
  return { ok: false, key, reason: 'revoked', addedAt: added?.index ?? -1, revokedAt: last.index };
}

/** The keys active just before log index `atIndex` (sorted), from a namespace's key statements. */
export function keysetAt(events: readonly LoggedKeyEvent[], atIndex: number): string[] {
  const state = new Map<string, boolean>();
  for (const e of [...events].filter((e) => e.index < atIndex).sort((a, b) => a.index - b.index)) state.set(e.key, e.kind === 'key-add');
  return [...state].filter(([, on]) => on).map(([k]) => k).sort();
}

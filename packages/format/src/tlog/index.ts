/**
 * The transparency log core (spec/transparency.md): RFC 6962 Merkle hashing and proofs, C2SP
 * signed notes, checkpoints, cosignatures, tlog-tiles, the witness protocol, ctxpkg log entries
 * and logged signer keysets. Pure: every fetch is injected.
 */
export * from './checkpoint.js';
export * from './entry.js';
export * from './keyset.js';
export * from './merkle.js';
export * from './note.js';
export * from './tiles.js';
export * from './verify.js';
export * from './witness.js';

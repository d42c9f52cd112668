/**
 * SHA-256 digests kept as bytes in one arena, by slot — 32 bytes (8 32-bit words) each — instead
 * of one 64-character hex string per digest. A cold compilation of a 50k-node graph hashes every
 * omitted node's content for its receipt: as hex strings those were ~50k young objects (~4 MB)
 * kept live until the receipt was read, which the render's scavenges copied (issue 16 item 3,
 * bench/render). Here they are one typed array, outside the JavaScript heap's young space; the
 * hex is written only when a record or the receipt text is read (`hex`).
 */
import { nodeBuiltin } from '../builtin.js';
import { sha256Into } from '../hash.js';

/** Bytes of one digest. */
export const DIGEST_BYTES = 32;
const WORDS = DIGEST_BYTES / 4;

/** Two lowercase hex digits of each byte value, as one 16-bit unit (in the platform's byte order). */
const HEX_PAIRS: Uint16Array = (() => {
  const bytes = new Uint8Array(512);
  const digits = '0123456789abcdef';
  for (let b = 0; b < 256; b++) {
    bytes[2 * b] = digits.charCodeAt(b >> 4);
    bytes[2 * b + 1] = digits.charCodeAt(b & 15);
  }
  return new Uint16Array(bytes.buffer);
})();
/** The 64 ASCII hex digits of one digest, written by `hex` before it decodes them. */
const hexScratch = new Uint8Array(2 * DIGEST_BYTES);
const hexScratchPairs = new Uint16Array(hexScratch.buffer);
/** The hex digits of up to `HEX_RUN` digests, written by `hexOfSlots` (grown on demand). */
let runScratch = new Uint16Array(0);
const ascii = new TextDecoder();

type NodeBuffer = { from(b: ArrayBufferLike, off: number, len: number): { toString(enc: 'hex'): string } };
/**
 * Lowercase hex of `bytes[from .. to)` by Node's Buffer (native: one call for a whole run, and as
 * fast in a fresh process as in a warm one, where the JavaScript loop of `hexDigits` runs
 * unoptimized at first: ~25 ms for 49k digests cold against ~4 ms warm, bench/render's
 * `receiptText`); probed like hash.ts (`process.getBuiltinModule`, no I/O). `undefined` elsewhere.
 */
const nativeHex: ((bytes: Uint8Array, from: number, to: number) => string) | undefined = (() => {
  try {
    const Buffer = nodeBuiltin<{ Buffer: NodeBuffer }>('node:buffer')?.Buffer;
    if (Buffer && typeof Buffer.from === 'function') return (bytes, from, to) => Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('hex');
  } catch {
    /* fall through */
  }
  return undefined;
})();

/**
 * How many digests a caller of `hexOfSlots` should ask for at once: one decode of 64 KiB of
 * digits (a regular young string, not a large object) instead of 1,024 calls of `hex`, each a
 * `TextDecoder` call (~1,000 instructions in Node 20, more than the digits themselves).
 */
export const HEX_RUN = 1024;

/** A growable array of SHA-256 digests addressed by slot (0-based). Slots not written hold zeros. */
export class DigestArena {
  private words: Int32Array;
  private bytes: Uint8Array;

  /** An arena of `slots` digests (it grows past that: `reserve`). */
  constructor(slots: number) {
    this.words = new Int32Array(WORDS * Math.max(0, slots));
    this.bytes = new Uint8Array(this.words.buffer);
  }

  /** How many slots the arena holds now. */
  get slots(): number {
    return this.words.length / WORDS;
  }

  /** Make room for slot `slot` (at least doubling, so `n` appended slots cost O(n) copying). */
  reserve(slot: number): void {
    if (slot < this.slots) return;
    const words = new Int32Array(WORDS * Math.max(slot + 1, 2 * this.slots + 16));
    words.set(this.words);
    this.words = words;
    this.bytes = new Uint8Array(words.buffer);
  }

  /** Slot `slot` becomes the SHA-256 of `text` as UTF-8 (hash.ts `sha256Into`). Throws `RangeError` past the arena's end. */
  hash(slot: number, text: string): void {
    sha256Into(text, this.bytes, DIGEST_BYTES * slot);
  }

  /** Slot `slot` becomes a copy of slot `fromSlot` of `from` (which may be this arena). Both must exist. */
  copy(slot: number, from: DigestArena, fromSlot: number): void {
    const to = this.words;
    const src = from.words;
    const t = WORDS * slot;
    const f = WORDS * fromSlot;
    if (t + WORDS > to.length || f + WORDS > src.length) throw new RangeError(`DigestArena.copy: slot ${slot} or ${fromSlot} out of range`);
    for (let k = 0; k < WORDS; k++) to[t + k] = src[f + k] as number;
  }

  /**
   * Slot `slot` becomes the digest written as `hex` (64 hex digits, either case). Throws
   * `RangeError` for anything else (checked first: never the silent stop of `Buffer.from(hex,
   * 'hex')`, AGENTS.md) or past the arena's end.
   */
  setHex(slot: number, hex: string): void {
    if (hex.length !== 2 * DIGEST_BYTES || !/^[0-9a-fA-F]*$/.test(hex)) throw new RangeError('DigestArena.setHex: not 64 hex digits');
    const o = DIGEST_BYTES * slot;
    if (o + DIGEST_BYTES > this.bytes.length) throw new RangeError(`DigestArena.setHex: slot ${slot} out of range`);
    for (let k = 0; k < DIGEST_BYTES; k++) this.bytes[o + k] = parseInt(hex.slice(2 * k, 2 * k + 2), 16);
  }

  /** The 64 lowercase hex digits of slot `slot` (FORMAT-FACTS §3.1: `hex_encode` is lowercase): one new string, no pieces. */
  hex(slot: number): string {
    const o = DIGEST_BYTES * slot;
    const bytes = this.bytes;
    if (o + DIGEST_BYTES > bytes.length) throw new RangeError(`DigestArena.hex: slot ${slot} out of range`);
    for (let k = 0; k < DIGEST_BYTES; k++) hexScratchPairs[k] = HEX_PAIRS[bytes[o + k] as number] as number;
    return ascii.decode(hexScratch);
  }

  /**
   * The hex of slots `slots[from]`, …, `slots[to - 1]` one after the other in one string: 64
   * lowercase hex digits each, the `j`-th at characters `64·j … 64·j + 63` (read them with
   * `slice`). Throws `RangeError` for a slot past the arena's end. Keep runs to `HEX_RUN` slots.
   */
  hexOfSlots(slots: ArrayLike<number>, from: number, to: number): string {
    const m = to - from;
    if (m <= 0) return '';
    if (nativeHex !== undefined) {
      // Consecutive slots (a receipt's rows usually are: merged graphs come sorted) are one run of bytes.
      const first = slots[from] as number;
      let j = 1;
      while (j < m && slots[from + j] === first + j) j++;
      if (j === m && first >= 0 && DIGEST_BYTES * (first + m) <= this.bytes.length) return nativeHex(this.bytes, DIGEST_BYTES * first, DIGEST_BYTES * (first + m));
    }
    // One 16-bit unit per byte (its two digits): DIGEST_BYTES units per digest.
    const need = DIGEST_BYTES * m;
    if (runScratch.length < need) runScratch = new Uint16Array(Math.max(need, DIGEST_BYTES * HEX_RUN));
    if (!hexDigits(this.bytes, slots, from, m, runScratch)) throw new RangeError('DigestArena.hexOfSlots: a slot out of range');
    return ascii.decode(new Uint8Array(runScratch.buffer, 0, 2 * DIGEST_BYTES * m));
  }
}

/**
 * The hex digits of digests `slots[from]`, … (`m` of them) of `bytes` into `out` (one 16-bit unit
 * per byte); false, with `out` partly written, when a slot is past the end. A function of its own
 * with no other work: a loop optimized on stack (OSR) in a longer function deoptimized on its way
 * out in a fresh process, at every call, where the code after it had no type feedback yet
 * (`--trace-deopt`: "Insufficient type feedback"), which made a cold `receiptText` ~2× its cost.
 */
function hexDigits(bytes: Uint8Array, slots: ArrayLike<number>, from: number, m: number, out: Uint16Array): boolean {
  for (let j = 0; j < m; j++) {
    const o = DIGEST_BYTES * (slots[from + j] as number);
    if (!(o >= 0 && o + DIGEST_BYTES <= bytes.length)) return false;
    const w = DIGEST_BYTES * j;
    for (let k = 0; k < DIGEST_BYTES; k++) out[w + k] = HEX_PAIRS[bytes[o + k] as number] as number;
  }
  return true;
}

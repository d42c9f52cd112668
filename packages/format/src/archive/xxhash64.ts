/**
 * XXH64 (xxHash, 64-bit, spec: Cyan4973/xxHash doc/xxhash_spec.md §"XXH64 algorithm").
 * zstd frames carry the low 32 bits of XXH64(content, seed 0) as their optional checksum
 * (RFC 8878 §3.1.1 "Content_Checksum"); fzstd skips it, so the reader verifies it here.
 *
 * 64-bit arithmetic is done on pairs of unsigned 32-bit numbers (no BigInt in the hot loop).
 * Streaming: `new Xxh64()`, `update(bytes)` any number of times, then `digest()`.
 */

// Primes as [hi, lo].
const P1H = 0x9e3779b1, P1L = 0x85ebca87;
const P2H = 0xc2b2ae3d, P2L = 0x27d4eb4f;
const P3H = 0x165667b1, P3L = 0x9e3779f9;
const P4H = 0x85ebca77, P4L = 0xc2b2ae63;
const P5H = 0x27d4eb2f, P5L = 0x165667c5;

// Result registers of the 64-bit helpers (avoid allocating pairs).
let rh = 0;
let rl = 0;

function mul(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff, a1 = al >>> 16, a2 = ah & 0xffff, a3 = ah >>> 16;
  const b0 = bl & 0xffff, b1 = bl >>> 16, b2 = bh & 0xffff, b3 = bh >>> 16;
  let c = a0 * b0;
  const r0 = c & 0xffff;
  c = Math.floor(c / 65536) + a0 * b1 + a1 * b0;
  const r1 = c & 0xffff;
  c = Math.floor(c / 65536) + a0 * b2 + a1 * b1 + a2 * b0;
  const r2 = c & 0xffff;
  c = Math.floor(c / 65536) + a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0;
  const r3 = c & 0xffff;
  rl = ((r1 << 16) | r0) >>> 0;
  rh = ((r3 << 16) | r2) >>> 0;
}

function add(ah: number, al: number, bh: number, bl: number): void {
  const lo = al + bl;
  rl = lo >>> 0;
  rh = (ah + bh + (lo > 0xffffffff ? 1 : 0)) >>> 0;
}

function rotl(h: number, l: number, r: number): void {
  if (r >= 32) {
    const t = h;
    h = l;
    l = t;
    r -= 32;
  }
  if (r === 0) {
    rh = h >>> 0;
    rl = l >>> 0;
    return;
  }
  rh = ((h << r) | (l >>> (32 - r))) >>> 0;
  rl = ((l << r) | (h >>> (32 - r))) >>> 0;
}

/** acc = rotl(acc + input * P2, 31) * P1, result in (rh, rl). */
function round(acch: number, accl: number, ih: number, il: number): void {
  mul(ih, il, P2H, P2L);
  add(acch, accl, rh, rl);
  rotl(rh, rl, 31);
  mul(rh, rl, P1H, P1L);
}

function readLo(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
}

/** Streaming XXH64 with seed 0. */
export class Xxh64 {
  private v = new Uint32Array(8); // v1h v1l v2h v2l v3h v3l v4h v4l
  private buf = new Uint8Array(32);
  private bufLen = 0;
  private total = 0;

  constructor() {
    // seed 0: v1 = P1 + P2, v2 = P2, v3 = 0, v4 = -P1
    add(P1H, P1L, P2H, P2L);
    this.v[0] = rh; this.v[1] = rl;
    this.v[2] = P2H; this.v[3] = P2L;
    this.v[4] = 0; this.v[5] = 0;
    // -P1 = ~P1 + 1
    add(~P1H >>> 0, ~P1L >>> 0, 0, 1);
    this.v[6] = rh; this.v[7] = rl;
  }

  private stripe(b: Uint8Array, o: number): void {
    const v = this.v;
    for (let lane = 0; lane < 4; lane++) {
      const p = o + lane * 8;
      round(v[lane * 2]!, v[lane * 2 + 1]!, readLo(b, p + 4), readLo(b, p));
      v[lane * 2] = rh;
      v[lane * 2 + 1] = rl;
    }
  }

  /** Feed more bytes. */
  update(bytes: Uint8Array): this {
    this.total += bytes.length;
    let i = 0;
    if (this.bufLen > 0) {
      const take = Math.min(32 - this.bufLen, bytes.length);
      this.buf.set(bytes.subarray(0, take), this.bufLen);
      this.bufLen += take;
      i = take;
      if (this.bufLen < 32) return this;
      this.stripe(this.buf, 0);
      this.bufLen = 0;
    }
    const end = bytes.length - 32;
    for (; i <= end; i += 32) this.stripe(bytes, i);
    if (i < bytes.length) {
      this.buf.set(bytes.subarray(i), 0);
      this.bufLen = bytes.length - i;
    }
    return this;
  }

  /** The hash as [hi, lo] unsigned 32-bit halves. */
  digestParts(): [number, number] {
    const v = this.v;
    let hh: number, hl: number;
    if (this.total >= 32) {
      rotl(v[0]!, v[1]!, 1); let ah = rh, al = rl;
      rotl(v[2]!, v[3]!, 7); add(ah, al, rh, rl); ah = rh; al = rl;
      rotl(v[4]!, v[5]!, 12); add(ah, al, rh, rl); ah = rh; al = rl;
      rotl(v[6]!, v[7]!, 18); add(ah, al, rh, rl); hh = rh; hl = rl;
      for (let lane = 0; lane < 4; lane++) {
        round(0, 0, v[lane * 2]!, v[lane * 2 + 1]!);
        hh = (hh ^ rh) >>> 0;
        hl = (hl ^ rl) >>> 0;
        mul(hh, hl, P1H, P1L);
        add(rh, rl, P4H, P4L);
        hh = rh; hl = rl;
      }
    } else {
      hh = P5H; hl = P5L;
    }
    // h += total length (< 2^53)
    add(hh, hl, Math.floor(this.total / 0x100000000) >>> 0, this.total >>> 0);
    hh = rh; hl = rl;
    const b = this.buf;
    const n = this.bufLen;
    let i = 0;
    for (; i + 8 <= n; i += 8) {
      round(0, 0, readLo(b, i + 4), readLo(b, i));
      hh = (hh ^ rh) >>> 0; hl = (hl ^ rl) >>> 0;
      rotl(hh, hl, 27); mul(rh, rl, P1H, P1L); add(rh, rl, P4H, P4L);
      hh = rh; hl = rl;
    }
    if (i + 4 <= n) {
      mul(0, readLo(b, i), P1H, P1L);
      hh = (hh ^ rh) >>> 0; hl = (hl ^ rl) >>> 0;
      rotl(hh, hl, 23); mul(rh, rl, P2H, P2L); add(rh, rl, P3H, P3L);
      hh = rh; hl = rl;
      i += 4;
    }
    for (; i < n; i++) {
      mul(0, b[i]!, P5H, P5L);
      hh = (hh ^ rh) >>> 0; hl = (hl ^ rl) >>> 0;
      rotl(hh, hl, 11); mul(rh, rl, P1H, P1L);
      hh = rh; hl = rl;
    }
    // avalanche: h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32
    hl = (hl ^ (hh >>> 1)) >>> 0;
    mul(hh, hl, P2H, P2L);
    hh = rh; hl = rl;
    const sl = ((hl >>> 29) | (hh << 3)) >>> 0;
    hl = (hl ^ sl) >>> 0;
    hh = (hh ^ (hh >>> 29)) >>> 0;
    mul(hh, hl, P3H, P3L);
    hh = rh; hl = rl;
    hl = (hl ^ hh) >>> 0;
    return [hh, hl];
  }

  /** The hash as 16 lowercase hex characters. */
  digestHex(): string {
    const [h, l] = this.digestParts();
    return h.toString(16).padStart(8, '0') + l.toString(16).padStart(8, '0');
  }
}

/**
 * Test support: take a ZIP apart into raw records and put it back together, so that a hostile
 * archive can be rebuilt from a valid one with exactly one defect (ADVERSARIAL: "rebuilt from an
 * otherwise valid archive so that only the defect under test is wrong"). No validation here.
 */
import { deflateRawSync } from 'node:zlib';
import { crc32 } from '../crc32.js';
import { resolveLimits } from '../limits.js';
import { scanZip } from '../zip-scan.js';

export interface RawEntry {
  /** Central-directory name bytes. */
  name: Uint8Array;
  /** Local-header name bytes (default: `name`). */
  localName?: Uint8Array;
  flags: number;
  method: number;
  crc: number;
  /** The stored (possibly deflated) data bytes. */
  data: Uint8Array;
  uncompressedSize: number;
  versionMadeBy: number;
  externalAttributes: number;
  cdExtra?: Uint8Array;
  localExtra?: Uint8Array;
  /** Overrides of the size fields (central / local) to forge lying headers. */
  cdSizes?: { compressed?: number; uncompressed?: number };
  localSizes?: { compressed?: number; uncompressed?: number };
  /** Write the central record pointing at another entry's local header (overlap). */
  pointAtEntry?: number;
}

const enc = new TextEncoder();

/** Bytes of a string name (UTF-8). */
export function nameBytes(name: string): Uint8Array {
  return enc.encode(name);
}

/** A regular file entry (deflated unless `stored`). */
export function fileEntry(name: string | Uint8Array, data: Uint8Array, opts: { stored?: boolean; mode?: number } = {}): RawEntry {
  const stored = opts.stored ?? false;
  return {
    name: typeof name === 'string' ? nameBytes(name) : name,
    flags: 0x0800,
    method: stored ? 0 : 8,
    crc: crc32(data),
    data: stored ? data : new Uint8Array(deflateRawSync(data)),
    uncompressedSize: data.length,
    versionMadeBy: 0x033f,
    externalAttributes: ((opts.mode ?? 0o100644) << 16) >>> 0,
  };
}

/** Take apart a (valid) ZIP produced by our writer. */
export function parseZip(bytes: Uint8Array): RawEntry[] {
  const limits = resolveLimits({ maxArchiveBytes: 2 ** 40, maxEntries: 65535, maxEntryBytes: 2 ** 40, maxTotalBytes: 2 ** 40 });
  return scanZip(bytes, limits).entries.map((e) => ({
    name: e.nameBytes.slice(),
    flags: e.flags,
    method: e.method,
    crc: e.crc32,
    data: bytes.slice(e.dataStart, e.dataStart + e.compressedSize),
    uncompressedSize: e.uncompressedSize,
    versionMadeBy: e.versionMadeBy,
    externalAttributes: e.externalAttributes,
  }));
}

class Out {
  parts: Uint8Array[] = [];
  length = 0;
  bytes(b: Uint8Array): void {
    this.parts.push(b);
    this.length += b.length;
  }
  u16(v: number): void {
    this.bytes(Uint8Array.of(v & 0xff, (v >>> 8) & 0xff));
  }
  u32(v: number): void {
    this.bytes(Uint8Array.of(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff));
  }
  concat(): Uint8Array {
    const out = new Uint8Array(this.length);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

/** Serialize entries as local records + central directory + end record (DOS time 1980-01-01). */
export function buildZip(entries: RawEntry[], opts: { prefix?: Uint8Array; suffix?: Uint8Array } = {}): Uint8Array {
  const out = new Out();
  if (opts.prefix) out.bytes(opts.prefix);
  const offsets: number[] = [];
  for (const e of entries) {
    offsets.push(out.length);
    const local = e.localName ?? e.name;
    const lextra = e.localExtra ?? new Uint8Array(0);
    out.u32(0x04034b50);
    out.u16(20);
    out.u16(e.flags);
    out.u16(e.method);
    out.u16(0);
    out.u16(0x21);
    out.u32(e.crc);
    out.u32(e.localSizes?.compressed ?? e.data.length);
    out.u32(e.localSizes?.uncompressed ?? e.uncompressedSize);
    out.u16(local.length);
    out.u16(lextra.length);
    out.bytes(local);
    out.bytes(lextra);
    out.bytes(e.data);
  }
  const cdStart = out.length;
  entries.forEach((e, i) => {
    const cextra = e.cdExtra ?? new Uint8Array(0);
    out.u32(0x02014b50);
    out.u16(e.versionMadeBy);
    out.u16(20);
    out.u16(e.flags);
    out.u16(e.method);
    out.u16(0);
    out.u16(0x21);
    out.u32(e.crc);
    out.u32(e.cdSizes?.compressed ?? e.data.length);
    out.u32(e.cdSizes?.uncompressed ?? e.uncompressedSize);
    out.u16(e.name.length);
    out.u16(cextra.length);
    out.u16(0);
    out.u16(0);
    out.u16(0);
    out.u32(e.externalAttributes);
    out.u32(offsets[e.pointAtEntry ?? i]!);
    out.bytes(e.name);
    out.bytes(cextra);
  });
  const cdSize = out.length - cdStart;
  out.u32(0x06054b50);
  out.u16(0);
  out.u16(0);
  out.u16(entries.length);
  out.u16(entries.length);
  out.u32(cdSize);
  out.u32(cdStart);
  out.u16(opts.suffix?.length ?? 0);
  if (opts.suffix) out.bytes(opts.suffix);
  return out.concat();
}

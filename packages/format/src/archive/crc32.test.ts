import { describe, expect, it } from 'vitest';
import { CRC32_BACKEND, crc32, crc32Update, crc32UpdatePortable } from './crc32.js';

describe('CRC-32', () => {
  const data = Uint8Array.from({ length: 100_003 }, (_, i) => (i * 2654435761) >>> 24);

  it('matches the check value of the ISO-HDLC CRC-32 ("123456789" → cbf43926)', () => {
    expect(crc32(new TextEncoder().encode('123456789')).toString(16)).toBe('cbf43926');
    expect(crc32UpdatePortable(0, new TextEncoder().encode('123456789')).toString(16)).toBe('cbf43926');
    expect(crc32(new Uint8Array(0))).toBe(0);
  });

  it('native and portable agree, and chaining equals one pass', () => {
    expect(CRC32_BACKEND).toBe('node');
    expect(crc32UpdatePortable(0, data)).toBe(crc32(data));
    for (const cut of [0, 1, 7, 8, 9, 50_000]) {
      expect(crc32Update(crc32Update(0, data.subarray(0, cut)), data.subarray(cut))).toBe(crc32(data));
      expect(crc32UpdatePortable(crc32UpdatePortable(0, data.subarray(0, cut)), data.subarray(cut))).toBe(crc32(data));
    }
  });
});

/**
 * Hard caps for reading a ZIP-form package (spec/archive.md §6 "Limits").
 *
 * Every cap is checked against bytes actually produced while inflating or decoding, never
 * against sizes an archive declares (declared sizes are attacker-controlled, ADVERSARIAL HB-16).
 * Callers that handle large packages (the bench, a registry configured for big packages) raise
 * the caps explicitly; the file and per-entry defaults match the 10 MiB package limit of the
 * reference (FORMAT-FACTS §1.1, `MAX_PACKAGE_FILE_BYTES`), the total is 32 MiB.
 */
import { CtxpkgError } from '../errors.js';

/** 10 MiB: the reference's `MAX_PACKAGE_FILE_BYTES` (FORMAT-FACTS §1.1). */
export const PACKAGE_SIZE_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * 32 MiB: what a ZIP-form package may expand to in total (all entries, decoded). The ZIP form
 * exists for packages larger than a JSON bundle may be (spec/archive.md §6): the file stays within
 * the 10 MiB package limit (the registry's own cap, the same 10 MiB by default, is a registry setting), each
 * entry within 10 MiB, and everything together within this. It also bounds the decoded bytes a
 * default reader holds, so a hostile archive costs at most this much memory (HB-16: < 64 MiB).
 */
export const ARCHIVE_UNPACKED_LIMIT_BYTES = 32 * 1024 * 1024;

/** The caps the archive reader enforces. All sizes are in bytes. */
export interface ArchiveLimits {
  /** Maximum number of central-directory entries (checked before any entry is read). */
  maxEntries: number;
  /** Maximum uncompressed bytes of one entry (after ZIP inflate and after zstd decode). */
  maxEntryBytes: number;
  /** Maximum uncompressed bytes of all entries together. */
  maxTotalBytes: number;
  /**
   * Maximum compression ratio (produced bytes / stored bytes) of one entry, applied to each
   * layer (deflate, zstd) once the layer has produced more than `ratioGraceBytes`.
   */
  maxRatio: number;
  /** Output below which `maxRatio` is not applied (small, highly repetitive files are normal). */
  ratioGraceBytes: number;
  /** Maximum zstd window size a frame may declare (the decoder allocates a window this big). */
  maxZstdWindowBytes: number;
  /** Maximum bytes of the archive itself (the input buffer). */
  maxArchiveBytes: number;
}

/**
 * The documented defaults (spec/archive.md §6):
 * - 16,384 entries (10k blobs + the fixed entries fit; the ZIP32 maximum is 65,535),
 * - 10 MiB per entry (the package limit) and 32 MiB in total (`ARCHIVE_UNPACKED_LIMIT_BYTES`),
 * - ratio 1000:1 after a 1 MiB grace (JSON deflates ~5–20:1; deflate's ceiling is ~1032:1),
 * - 8 MiB zstd window (zstd's own default cap for levels ≤ 19),
 * - 10 MiB archive.
 */
export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxEntries: 16_384,
  maxEntryBytes: PACKAGE_SIZE_LIMIT_BYTES,
  maxTotalBytes: ARCHIVE_UNPACKED_LIMIT_BYTES,
  maxRatio: 1000,
  ratioGraceBytes: 1024 * 1024,
  maxZstdWindowBytes: 8 * 1024 * 1024,
  maxArchiveBytes: PACKAGE_SIZE_LIMIT_BYTES,
});

/**
 * Slack a decoder may overshoot a cap by before it stops (one zlib output chunk is 16 KiB,
 * one zstd block is at most 128 KiB). HB-16: "stops after at most cap + 64 KiB" holds for
 * deflate; zstd block output is checked against the cap before it is kept.
 */
export const CAP_SLACK_BYTES = 64 * 1024;

/**
 * Merge caller overrides onto the defaults and validate them.
 * Throws `E_USAGE` when a value is not a positive safe integer (ratio: a positive number).
 */
export function resolveLimits(overrides: Partial<ArchiveLimits> = {}): ArchiveLimits {
  const out: ArchiveLimits = { ...DEFAULT_ARCHIVE_LIMITS };
  for (const [key, value] of Object.entries(overrides) as Array<[keyof ArchiveLimits, unknown]>) {
    if (value === undefined) continue;
    if (!(key in DEFAULT_ARCHIVE_LIMITS)) {
      throw usageError(`unknown archive limit "${String(key)}"`);
    }
    const ok =
      typeof value === 'number' &&
      (key === 'maxRatio' ? Number.isFinite(value) && value > 0 : Number.isSafeInteger(value) && value >= 0);
    if (!ok) throw usageError(`archive limit ${key} must be a non-negative number, got ${String(value)}`);
    out[key] = value as number;
  }
  return out;
}

function usageError(message: string): CtxpkgError {
  return new CtxpkgError('E_USAGE', message, { hint: 'see spec/archive.md §6 for the limit names and defaults' });
}

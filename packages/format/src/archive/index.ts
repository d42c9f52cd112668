/**
 * The ZIP form of a `.ctxpkg` package (spec/archive.md): detection, reading under hard caps,
 * deterministic writing, zstd frames, blob references and JSON ↔ ZIP conversion.
 */
export { DEFAULT_ARCHIVE_LIMITS, PACKAGE_SIZE_LIMIT_BYTES, resolveLimits, type ArchiveLimits } from './limits.js';
export { BLOB_REF_RE, CONTENT_ENTRY, MANIFEST_ENTRY, REBUILD_ENTRY } from './names.js';
export {
  isZipBytes,
  readArchive,
  readArchiveParts,
  type ArchiveContents,
  type ReadArchiveOptions,
} from './reader.js';
export { decompressZstd, encodeZstdFrame, inspectZstdFrame, type ZstdDecodeCaps, type ZstdFrameInfo } from './zstd.js';

/**
 * The ZIP form of a `.ctxpkg` package (spec/archive.md): detection, reading under hard caps,
 * deterministic writing, zstd frames, blob references and JSON ↔ ZIP conversion.
 */
export { checkBlobRefs, collectBlobRefs, verifyBlobs, type BlobRefGraph } from './blobs.js';
export { BUNDLE_BLOBS_MEMBER, decodeBase64Strict, decodeBundleBlobs, encodeBase64 } from './bundle-blobs.js';
export {
  archiveToJsonBundle,
  jsonBundleToArchive,
  prettyJsonText,
  type ArchiveToJsonOptions,
  type JsonToArchiveOptions,
} from './bundle.js';
export {
  ARCHIVE_UNPACKED_LIMIT_BYTES,
  CAP_SLACK_BYTES,
  DEFAULT_ARCHIVE_LIMITS,
  PACKAGE_SIZE_LIMIT_BYTES,
  resolveLimits,
  type ArchiveLimits,
} from './limits.js';
export { BLOB_REF_RE, CONTENT_ENTRY, MANIFEST_ENTRY, REBUILD_ENTRY } from './names.js';
export { listPackageBlobRefs, readPackageBlobs } from './package-blobs.js';
export {
  isZipBytes,
  listArchiveBlobRefs,
  readArchive,
  readArchiveParts,
  type ArchiveContents,
  type ReadArchiveOptions,
} from './reader.js';
export { writeArchive, type ArchiveInput, type WriteArchiveOptions, type ZstdCompressor } from './writer.js';
export {
  decodeZstdFrame,
  decompressZstd,
  encodeZstdFrame,
  inspectZstdFrame,
  type ZstdDecodeCaps,
  type ZstdFrameInfo,
} from './zstd.js';

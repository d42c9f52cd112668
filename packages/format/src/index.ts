/**
 * @ctxpkg/format — the pure core of ctxpkg: no file system, network or process access.
 * Bytes, strings and objects in; values out or a `CtxpkgError` thrown.
 *
 * Each module re-exports here; keep one `export *` line per module, sorted.
 */
export * from './archive/index.js';
export * from './conformance.js';
export * from './content.js';
export * from './documents.js';
export * from './ed25519-verify.js';
export * from './ed25519.js';
export * from './errors.js';
export * from './graph-types.js';
export * from './graph.js';
export * from './hash.js';
export * from './hash-portable.js';
export * from './bytes.js';
export * from './hex.js';
export * from './integrity.js';
export * from './json/index.js';
export * from './keys.js';
export * from './lockfile.js';
export * from './manifest.js';
export * from './merge/index.js';
export * from './names.js';
export * from './pack/index.js';
export * from './package-container.js';
export * from './package-verify.js';
export * from './package-write.js';
export * from './package.js';
export * from './qualified-ref.js';
export * from './resolve.js';
export * from './secrets.js';
export * from './signature.js';
export * from './tlog/index.js';
export * from './v1view.js';
export * from './versions.js';

/**
 * Qualified node references `@ns/name#<local id>`: how a package names a node of another
 * package (spec/merge.md §2 "Qualified ids"; spec/format.md §7, level 2).
 *
 * A reference is split at its **first** `#` (package names never contain `#`, the same split
 * the merge's `lookupQualified` makes). It is well-formed when the part before is a scoped
 * package name (spec/format.md §13, `parsePackageName`) and the part after — the node's local id
 * in that package — is non-empty and holds no U+0000 (the merge refuses NUL in references,
 * spec/merge.md §1.1). Whether the node exists can only be decided at merge time, against the
 * installed set: a reference to an absent node is dropped there and listed in the report
 * (`edges_dropped`, `supersedes_dropped`).
 */
import { isCtxpkgError } from './errors.js';
import { parsePackageName } from './names.js';

/** A well-formed qualified reference, split. */
export interface QualifiedRef {
  /** The scoped package name, e.g. `@acme/auth`. */
  package: string;
  /** The node's local id inside that package (everything after the first `#`). */
  localId: string;
}

/**
 * Split `ref` when it is a well-formed qualified reference (see module comment); `undefined`
 * for anything else — a plain local id, a malformed name, an empty local id. Never throws.
 */
export function parseQualifiedRef(ref: string): QualifiedRef | undefined {
  const h = ref.indexOf('#');
  if (h <= 0) return undefined;
  const pkg = ref.slice(0, h);
  const localId = ref.slice(h + 1);
  if (localId === '' || localId.includes('\u0000')) return undefined;
  try {
    parsePackageName(pkg);
  } catch (e) {
    if (isCtxpkgError(e)) return undefined;
    throw e;
  }
  return { package: pkg, localId };
}

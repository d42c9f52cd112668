/**
 * Node ids of imported Markdown (spec/format.md §16 "Node ids"). An id must survive edits
 * elsewhere in the file — `context.pins` and cross-package references name nodes by id — so it is
 * built from where a node sits in the heading outline and what it says, never from a line number:
 *
 * - root section: `<file_path>`;
 * - section: `<file_path>:<heading path>`, the heading path being the slugs of the enclosing
 *   headings and its own, joined with `/` (`AGENTS.md:testing/fixtures`);
 * - block (list item, paragraph, quote, table, code, HTML): `<file_path>:<heading path>~<hash>`
 *   where `<hash>` is the first 8 hex characters of the SHA-256 of the block's normalized text
 *   (`normalizeText`: a leading list marker does not count); top-level blocks have an empty heading path (`AGENTS.md:~3f2a9c1d`). The
 *   `~` (not `:`) keeps an id under a heading such as "API key" from reading as a secret
 *   assignment (`api-key:3f2a9c1d`) to the secret screens of create, the registry and packs;
 * - frontmatter scope node: `<file_path>:scope:<k>` (k-th glob, 1-based).
 *
 * Exact duplicates (same base id within one file) get `.2`, `.3`, … in document order, so ids are
 * unique and deterministic. Slugs keep Unicode letters and digits (lowercased, NFC) and turn every
 * other run of characters into `-`; they never contain `.`, `:`, `~` or `#`, so the suffixes and
 * the separators stay unambiguous and ids never look qualified (spec/merge.md §2 uses `#`).
 */
import { createHash } from 'node:crypto';

/** Characters of a block's text hash in its id (hex, 32 bits; duplicates are disambiguated). */
export const ID_HASH_CHARS = 8;

/** Longest slug of one heading, in characters. */
const MAX_SLUG = 48;

/**
 * The text a block id hashes: NFC, a leading list marker (`- `, `* `, `+ `, `1. `, `1) `)
 * removed, every whitespace run collapsed to one space, trimmed. Without the marker, a list item
 * keeps the id it had when importers stored items without their marker.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/^\s*(?:[-*+]|\d{1,9}[.)])[ \t]+/u, '')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** The slug of a heading: lowercase letters/digits with `-` between words; `section` when empty. */
export function headingSlug(title: string): string {
  const slug = title
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  const cut = [...slug].slice(0, MAX_SLUG).join('').replace(/-+$/, '');
  return cut === '' ? 'section' : cut;
}

/** The base id of a block under heading path `path` (before de-duplication). */
export function blockId(filePath: string, path: string, text: string): string {
  const hash = createHash('sha256').update(normalizeText(text), 'utf8').digest('hex').slice(0, ID_HASH_CHARS);
  return `${filePath}:${path}~${hash}`;
}

/** The id of the k-th (1-based) frontmatter scope node of a file. */
export function scopeId(filePath: string, k: number): string {
  return `${filePath}:scope:${k}`;
}

/**
 * Id of the node holding a file's frontmatter `description` (when the rules apply, as Cursor's
 * agent-requested rules say it): `<file_path>:frontmatter:description`. Heading slugs hold no
 * `:`, so it never meets a section id.
 */
export function descriptionId(filePath: string): string {
  return `${filePath}:frontmatter:description`;
}

/**
 * Hands out unique ids: the base itself first, then `<base>.2`, `<base>.3`, … (the first of
 * them no earlier `take` returned, in that order).
 *
 * Linear in the number of takes: each base remembers the next suffix to try, so the k-th copy of
 * one base probes once instead of k times (a file of 20,000 identical bullets probed 2·10⁸ ids,
 * 100 s; issue 11). Ids are never released, so skipping the suffixes already passed gives the same
 * ids as probing from `.2` every time. `probes` counts candidate ids checked (for tests).
 */
export class IdAllocator {
  private readonly used = new Set<string>();
  /** Per base: the next suffix to try (absent: the base itself is untried). */
  private readonly nextSuffix = new Map<string, number>();
  /** Candidate ids checked against the used set so far, over all takes. */
  probes = 0;

  /** Reserve and return the first free id for `base`. */
  take(base: string): string {
    let k = this.nextSuffix.get(base) ?? 1;
    let id = k === 1 ? base : `${base}.${k}`;
    this.probes++;
    while (this.used.has(id)) {
      k++;
      id = `${base}.${k}`;
      this.probes++;
    }
    this.used.add(id);
    this.nextSuffix.set(base, k + 1);
    return id;
  }
}

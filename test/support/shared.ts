/**
 * Access to `../shared` (read-only interop vectors, corpus, adversarial inputs). It is present in
 * CI but absent in a fresh clone; tests that need it use `describeShared`, which skips with a
 * printed reason when it is missing.
 */
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/** Repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Location of the shared folder: `$CTXPKG_SHARED_DIR`, else `<repo>/../shared`. */
export const SHARED_DIR = process.env.CTXPKG_SHARED_DIR ?? resolve(REPO_ROOT, '..', 'shared');

/** True when the shared folder with its vectors is present. */
export const HAS_SHARED = existsSync(join(SHARED_DIR, 'vectors', 'reference-vectors.json'));

let warned = false;

/**
 * True for the first caller in this test run. Test files run in separate worker processes
 * (`pool: 'forks'`), so a module flag alone would print once per file: the first worker to
 * create a marker file named after the vitest main process (the workers' parent) wins.
 */
function firstInRun(): boolean {
  if (warned) return false;
  warned = true;
  try {
    closeSync(openSync(join(tmpdir(), `ctxpkg-shared-skip-${process.ppid}`), 'wx'));
    return true;
  } catch {
    return false;
  }
}

/** `describe` that runs only when ../shared exists; otherwise skips and says why (once per run). */
export function describeShared(name: string, fn: () => void): void {
  if (!HAS_SHARED && firstInRun()) {
    // eslint-disable-next-line no-console
    console.warn(
      `[skip] ${SHARED_DIR} is absent (fresh clone): tests that read the shared vectors, corpus and adversarial inputs are skipped; ` +
        'set CTXPKG_SHARED_DIR=/path/to/shared to run them',
    );
  }
  if (HAS_SHARED) {
    describe(name, fn);
    return;
  }
  // describe.skip still runs its body to collect tests, and bodies here read ../shared at
  // collection time, so the body is not run at all: one skipped placeholder says why.
  describe.skip(name, () => {
    it(`needs ${SHARED_DIR} (absent in a fresh clone)`, () => undefined);
  });
}

/** Read a file under ../shared as bytes. */
export function sharedBytes(rel: string): Uint8Array {
  return new Uint8Array(readFileSync(join(SHARED_DIR, rel)));
}

/** Read a file under ../shared as UTF-8 text. */
export function sharedText(rel: string): string {
  return readFileSync(join(SHARED_DIR, rel), 'utf8');
}

/** Parse a JSON file under ../shared. */
export function sharedJson<T = unknown>(rel: string): T {
  return JSON.parse(sharedText(rel)) as T;
}

/**
 * Tokenizing for the search index (spec/pack.md §12). Three kinds of lowercase terms:
 *
 * - words: runs of letters, digits and `_` of at least 2 characters, with a light plural stem
 *   (`stem`: `tests` → `test`, `dependencies` → `dependency`);
 * - identifier parts (`subwordTerms`): the parts of a word joined by `_` or written in camelCase
 *   (`redis_url` → `redis`, `url`; `IEditorService` → `editor`, `service`), stemmed;
 * - compounds (`compoundTerms`): identifiers, paths, file names and flags kept whole —
 *   `package-lock.json`, `--frozen-lockfile`, `src/vs/base`, `@pytest.mark.slow`, `span::styled` —
 *   so a query naming one matches it exactly (a rare term, so a strong match), besides its words.
 *
 * `terms()` is the definition (words, then identifier parts, then compounds); `queryTerms()` is
 * the same for a query, without common English words (`STOP_WORDS`) unless nothing else is left;
 * `TermDictionary.tokenize` is an equivalent of `terms()` that interns terms as ids without
 * allocating for plain ASCII words, and `DocTerms` collects each document's distinct term ids with
 * frequencies. Pure; every pattern is linear.
 */

const TERM = /[\p{L}\p{N}_]{2,}/gu;
const ASCII_TERM = /[a-z0-9_]{2,}/g;
const NON_ASCII = /[^\x00-\x7f]/;
/** Runs of word characters and the punctuation that joins identifiers, paths and flags. */
const COMPOUND_RUN = /[\p{L}\p{N}_.\-/:@#+]+/gu;
const JOINERS = '.-/:@#+';
/** Longest compound kept (characters); longer runs (URLs, long paths) are indexed by their words only. */
const MAX_COMPOUND = 100;
/** Words of an original-case text that may hold identifier parts (`_`, or a lower→upper change). */
const IDENT_RUN = /[\p{L}\p{N}_]*(?:_|\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll})[\p{L}\p{N}_]*/gu;
/** ASCII text holds no identifier parts unless it has `_` or a lower→upper (or UPPER→Upper) change. */
const ASCII_IDENT_HINT = /_|[a-z][A-Z]|[A-Z][A-Z][a-z]/;

/**
 * Words a query is better off without (they match almost every node): articles, pronouns,
 * question words and auxiliaries. Never `not`/`never`/`must`: they carry the meaning of gotchas.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  ('a about also am an and any anything are as at be been but by can could did do does doing for from had has have here how i ' +
    'if in into is it its know many me much my need needs of on or our please should so some something such tell than that the ' +
    'their them then there these they thing things this those to want wants was we were what when where which while who why will ' +
    'with would you your').split(' '),
);

/**
 * Short forms and long forms that name the same thing in instruction files ("format" vs `just
 * fmt`, "dependencies" vs `deps`): a query term of one also looks for the other. Both sides are
 * stemmed forms as `terms()` makes them.
 */
const SAME_AS: ReadonlyMap<string, readonly string[]> = (() => {
  const pairs: Array<[string, string]> = [
    ['format', 'fmt'],
    ['formatting', 'fmt'],
    ['formatter', 'fmt'],
    ['dependency', 'dep'],
    ['configuration', 'config'],
    ['repository', 'repo'],
    ['documentation', 'doc'],
    ['environment', 'env'],
    ['directory', 'dir'],
    ['typescript', 'ts'],
    ['javascript', 'js'],
    ['python', 'py'],
  ];
  const m = new Map<string, string[]>();
  for (const [a, b] of pairs) {
    m.set(a, [...(m.get(a) ?? []), b]);
    m.set(b, [...(m.get(b) ?? []), a]);
  }
  return m;
})();

/**
 * The light stem of a lowercase word: `…ies` → `…y` (words over 4 characters), a final `s`
 * dropped (words over 3 characters, not after `s`, `u` or `i`: `class`, `status`, `this` stay).
 */
export function stem(word: string): string {
  const n = word.length;
  if (n > 4 && word.endsWith('ies')) return word.slice(0, -3) + 'y';
  if (n > 3 && word.charCodeAt(n - 1) === 115) {
    const p = word.charCodeAt(n - 2);
    if (p !== 115 && p !== 117 && p !== 105) return word.slice(0, -1);
  }
  return word;
}

/**
 * The identifier parts of original-case `text`: each word holding `_` or a camelCase change is
 * split there (`getHTTPResponse` → `get`, `http`, `response`), lowercased and stemmed; parts of at
 * least 2 characters that differ from the whole word.
 */
export function subwordTerms(text: string): string[] {
  const out: string[] = [];
  if (!NON_ASCII.test(text) && !ASCII_IDENT_HINT.test(text)) return out;
  for (const m of text.matchAll(IDENT_RUN)) {
    const word = m[0];
    const whole = word.toLowerCase();
    const parts = word
      .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
      .split(/[_ ]+/);
    for (const p of parts) {
      const t = p.toLowerCase();
      if (t.length >= 2 && t !== whole) out.push(stem(t));
    }
  }
  return out;
}

/**
 * The compound terms of lowercase `lower`: each run of letters, digits, `_` and `. - / : @ # +`
 * with joiners trimmed from its end and from its start — except a leading `-`/`--` (a flag), `@`
 * (a decorator or scoped name) or `.` (a dotfile) — kept when a joiner remains inside, it has
 * at least 3 characters and at most 100.
 */
export function compoundTerms(lower: string): string[] {
  const out: string[] = [];
  if (!NON_ASCII.test(lower)) {
    // ASCII: the same runs found by a scan (no regex engine; this runs on every indexed text).
    let start = -1;
    let joined = false;
    for (let i = 0; i <= lower.length; i++) {
      const c = i < lower.length ? lower.charCodeAt(i) : 32;
      const word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
      const join = c === 46 || c === 45 || c === 47 || c === 58 || c === 64 || c === 35 || c === 43;
      if (word || join) {
        if (start < 0) {
          start = i;
          joined = false;
        }
        if (join) joined = true;
      } else if (start >= 0) {
        if (joined) compoundOf(lower.slice(start, i), out);
        start = -1;
      }
    }
    return out;
  }
  for (const m of lower.matchAll(COMPOUND_RUN)) compoundOf(m[0], out);
  return out;
}

/** Trim a compound run (see `compoundTerms`) and add it to `out` when it qualifies. */
function compoundOf(run: string, out: string[]): void {
  let end = run.length;
  while (end > 0 && JOINERS.includes(run[end - 1] as string)) end--;
  let start = 0;
  while (start < end && JOINERS.includes(run[start] as string)) start++;
  // Keep a flag's dashes (at most two), a leading @ or a leading dot.
  if (start > 0) {
    const lead = run.slice(0, start);
    if (lead.endsWith('--')) start -= 2;
    else if (lead.endsWith('-') || lead.endsWith('@') || lead.endsWith('.')) start -= 1;
  }
  if (end - start < 3 || end - start > MAX_COMPOUND) return;
  const term = run.slice(start, end);
  for (let i = 0; i < term.length; i++) {
    if (JOINERS.includes(term[i] as string)) {
      out.push(term);
      return;
    }
  }
}

/** Lowercase words of `lower` (unstemmed). */
function words(lower: string): string[] {
  return (NON_ASCII.test(lower) ? lower.match(TERM) : lower.match(ASCII_TERM)) ?? [];
}

/** The terms of `text`: its stemmed words, then its identifier parts, then its compounds. */
export function terms(text: string): string[] {
  const lower = text.toLowerCase();
  return [...words(lower).map(stem), ...subwordTerms(text), ...compoundTerms(lower)];
}

/**
 * The terms of a query: as `terms`, without `STOP_WORDS` (unless the query has nothing else), so
 * "how do I add a dependency" looks for `add` and `dependency` — and with each word's short or
 * long form (`SAME_AS`: `dependency` also looks for `dep`, `format` for `fmt`).
 */
export function queryTerms(text: string): string[] {
  const lower = text.toLowerCase();
  const all = words(lower);
  const kept = all.filter((w) => !STOP_WORDS.has(w));
  const stems = (kept.length > 0 ? kept : all).map(stem);
  const same = stems.flatMap((w) => SAME_AS.get(w) ?? []);
  return [...stems, ...same, ...subwordTerms(text), ...compoundTerms(lower)];
}

/**
 * Term ids by term, with an allocation-free tokenizer for ASCII text: terms are hashed
 * (FNV-1a over the lowercased characters) and compared in place, and a string is created only
 * for a term seen for the first time. Texts with non-ASCII characters go through `terms()`.
 */
export class TermDictionary {
  private table = new Int32Array(1 << 16).fill(-1);
  private mask = (1 << 16) - 1;
  private readonly list: string[] = [];
  private readonly hashes: number[] = [];

  get size(): number {
    return this.list.length;
  }

  words(): string[] {
    return [...this.list];
  }

  get(term: string): number | undefined {
    let h = 0x811c9dc5;
    for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 16777619);
    for (let at = h & this.mask; ; at = (at + 1) & this.mask) {
      const tid = this.table[at] as number;
      if (tid < 0) return undefined;
      if (this.hashes[tid] === h && this.list[tid] === term) return tid;
    }
  }

  private intern(text: string, start: number, end: number, h: number, lower: boolean): number {
    const len = end - start;
    for (let at = h & this.mask; ; at = (at + 1) & this.mask) {
      const tid = this.table[at] as number;
      if (tid < 0) {
        const word = lower ? text.slice(start, end).toLowerCase() : text.slice(start, end);
        const id = this.list.length;
        this.list.push(word);
        this.hashes.push(h);
        this.table[at] = id;
        if (id * 2 > this.mask) this.grow();
        return id;
      }
      if (this.hashes[tid] !== h) continue;
      const w = this.list[tid] as string;
      if (w.length !== len) continue;
      let k = 0;
      for (; k < len; k++) {
        let c = text.charCodeAt(start + k);
        if (lower && c >= 65 && c <= 90) c += 32;
        if (c !== w.charCodeAt(k)) break;
      }
      if (k === len) return tid;
    }
  }

  private grow(): void {
    const size = (this.mask + 1) * 2;
    this.table = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    this.hashes.forEach((h, tid) => {
      let at = h & this.mask;
      while ((this.table[at] as number) >= 0) at = (at + 1) & this.mask;
      this.table[at] = tid;
    });
  }

  /** Add every term of `text` to `sink`, in order (the same terms as `terms(text)`). */
  tokenize(text: string, sink: DocTerms): void {
    const whole = (t: string): void => {
      let h = 0x811c9dc5;
      for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
      sink.add(this.intern(t, 0, t.length, h, false));
    };
    if (NON_ASCII.test(text)) {
      for (const t of terms(text)) whole(t);
      return;
    }
    // One pass: words (interned in place), compound runs and whether identifier parts exist.
    let start = -1;
    let h = 0;
    let hPrev = 0;
    let prev = 0;
    let last = 0;
    let cStart = -1;
    let joined = false;
    let identHint = false;
    let before = 0;
    let before2 = 0;
    const compounds: string[] = [];
    const n = text.length;
    for (let i = 0; i <= n; i++) {
      const raw = i < n ? text.charCodeAt(i) : 32;
      const upper = raw >= 65 && raw <= 90;
      const c = upper ? raw + 32 : raw;
      const isWord = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
      const isJoin = c === 46 || c === 45 || c === 47 || c === 58 || c === 64 || c === 35 || c === 43;
      if (!identHint && (raw === 95 || (upper && before >= 97 && before <= 122) || (raw >= 97 && raw <= 122 && before >= 65 && before <= 90 && before2 >= 65 && before2 <= 90))) identHint = true;
      before2 = before;
      before = raw;
      if (isWord || isJoin) {
        if (cStart < 0) {
          cStart = i;
          joined = false;
        }
        if (isJoin) joined = true;
      } else if (cStart >= 0) {
        if (joined) compoundOf(text.slice(cStart, i).toLowerCase(), compounds);
        cStart = -1;
      }
      if (isWord) {
        if (start < 0) {
          start = i;
          h = 0x811c9dc5;
          last = 0;
        }
        hPrev = h;
        prev = last;
        last = c;
        h = Math.imul(h ^ c, 16777619);
      } else if (start >= 0) {
        const len = i - start;
        if (len >= 2) {
          // stem(): `…ies` → `…y` (rare: allocate), a final `s` dropped (the hash without it is hPrev).
          if (len > 4 && last === 115 && prev === 101 && (text.charCodeAt(i - 3) | 32) === 105) whole(stem(text.slice(start, i).toLowerCase()));
          else if (len > 3 && last === 115 && prev !== 115 && prev !== 117 && prev !== 105) sink.add(this.intern(text, start, i - 1, hPrev, true));
          else sink.add(this.intern(text, start, i, h, true));
        }
        start = -1;
      }
    }
    if (identHint) for (const t of subwordTerms(text)) whole(t);
    for (const t of compounds) whole(t);
  }
}

/**
 * Each document's distinct term ids with their frequencies, in first-seen order, in growing
 * typed arrays (`tid/tf[start[d] … start[d+1])`). `add` is called per token of document `doc`.
 */
export class DocTerms {
  tid = new Int32Array(1 << 16);
  tf = new Int32Array(1 << 16);
  length = 0;
  doc = 0;
  /** Tokens of the current document (with repeats): its BM25 length. */
  tokens = 0;
  private lastDoc = new Int32Array(1 << 12).fill(-1);
  private slot = new Int32Array(1 << 12);

  add(id: number): void {
    this.tokens++;
    if (id >= this.lastDoc.length) this.growTerms(id);
    if (this.lastDoc[id] === this.doc) {
      this.tf[this.slot[id] as number]++;
      return;
    }
    if (this.length === this.tid.length) this.growPostings();
    this.lastDoc[id] = this.doc;
    this.slot[id] = this.length;
    this.tid[this.length] = id;
    this.tf[this.length] = 1;
    this.length++;
  }

  private growTerms(id: number): void {
    const size = Math.max(id + 1, this.lastDoc.length * 2);
    const l = new Int32Array(size).fill(-1);
    l.set(this.lastDoc);
    this.lastDoc = l;
    const s = new Int32Array(size);
    s.set(this.slot);
    this.slot = s;
  }

  private growPostings(): void {
    const t = new Int32Array(this.tid.length * 2);
    t.set(this.tid);
    this.tid = t;
    const f = new Int32Array(this.tf.length * 2);
    f.set(this.tf);
    this.tf = f;
  }
}

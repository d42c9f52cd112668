/**
 * The total order of pack candidates and the section of each node type (spec/pack.md "Order").
 *
 * Order keys, compared in turn:
 *  1. pinned first;
 *  2. focus score, higher first (all equal without `--focus`);
 *  3. priority, higher first (policy `priorities`: node id entry, else package entry, else 0);
 *  3b. force, higher first (`forceOf`: 2 for security text — credentials, secrets, input
 *     validation —, 1 for an imperative with never/always/must/do not, else 0), so "Never commit
 *     API keys" is taken before "Periodically run `uv pip list`" (new-user trial 2, finding 2);
 *  4. size class: an item whose text is larger than an eighth of the budget (`isOversize`) after
 *     all the others, so one long text cannot crowd out many short rules (it still gets the
 *     bytes left at the end, spec/pack.md §5). A lead-in with its list is not one item here: the
 *     compiler budgets such a node by its list items (spec/pack.md §4 "List nodes");
 *  5. type rank, lower first (`TYPE_RANK`; unknown types rank 50, `code_*` 60);
 *  6. effective activation, higher first (activation after temporal decay at `now`);
 *  7. position among the candidates of its source file (by first line, then id, then list item;
 *     lower first) — so equal items are taken from the top of every file in turn (the first item
 *     of each file, then the second, …), not file by file in the alphabetical order of their paths;
 *  8. package name, then 9. qualified node id — both by UTF-16 code unit order (never locale),
 *     so the order is total: ids are unique (the list items of one node differ in position).
 */
import type { MergedNode } from '../graph-types.js';
import type { SectionName } from './types.js';
import { WORD_CODE, wordStarts, type WordStarts } from '../word-starts.js';

/**
 * Type rank: what an agent most needs to see first. Procedures — how to build, test and run
 * ("Run all tests: `npm test`") — rank right after rules and conventions and before decisions,
 * patterns and plain facts: they are short and a coding agent needs them on nearly every task
 * (spec/pack.md §2 "Default priority").
 */
export const TYPE_RANK: Readonly<Record<string, number>> = {
  gotcha: 0,
  warning: 0,
  rule: 10,
  convention: 10,
  constraint: 10,
  procedure: 15,
  decision: 20,
  pattern: 40,
  fact: 45,
  insight: 46,
  session: 70,
};

/** Rank of a node type (`TYPE_RANK`, unknown 50, `code_*` 60). */
export function typeRank(type: string): number {
  const r = TYPE_RANK[type];
  if (r !== undefined && Object.hasOwn(TYPE_RANK, type)) return r;
  return type.startsWith('code_') ? 60 : 50;
}

/** The section (budget share, spec/pack.md §5) of each known type; every other type is a fact. */
const TYPE_SECTION: Readonly<Record<string, SectionName>> = {
  gotcha: 'gotchas',
  warning: 'gotchas',
  rule: 'conventions',
  convention: 'conventions',
  constraint: 'conventions',
  decision: 'conventions',
  procedure: 'procedures',
};

/** The section of a non-pinned node (`TYPE_SECTION`; unknown, `code_*` and the rest: `facts`). */
export function sectionOf(type: string): SectionName {
  return Object.hasOwn(TYPE_SECTION, type) ? (TYPE_SECTION[type] as SectionName) : 'facts';
}

const DAY_MS = 86_400_000;

/**
 * Activation after temporal decay: `activation · 0.5^(age_days / decay_half_life_days)` with
 * `age_days` in whole days (FORMAT-FACTS §5.1 `apply_temporal_decay`, which the reference never
 * calls; we apply it at render time). `undefined` for nodes that do not decay: without
 * `created_at` or a positive half-life, or created after `now`.
 */
export function decayedActivation(node: Pick<MergedNode, 'activation' | 'created_at' | 'decay_half_life_days'>, nowMs: number): number | undefined {
  const hl = node.decay_half_life_days;
  if (!node.created_at || !hl || hl <= 0) return undefined;
  const created = Date.parse(node.created_at);
  if (!Number.isFinite(created) || created >= nowMs) return undefined;
  const base = Number.isFinite(node.activation) ? node.activation : 0;
  return base * Math.pow(0.5, Math.floor((nowMs - created) / DAY_MS) / hl);
}

/** Effective activation at `now`: decayed when the node decays, else its activation (0 if not finite). */
export function effectiveActivation(node: Pick<MergedNode, 'activation' | 'created_at' | 'decay_half_life_days'>, nowMs: number): number {
  return decayedActivation(node, nowMs) ?? (Number.isFinite(node.activation) ? node.activation : 0);
}

/**
 * True when an item of `textBytes` UTF-8 bytes is larger than an eighth of a `budgetBytes` budget
 * (order key 4: such items come after the others).
 */
export function isOversize(textBytes: number, budgetBytes: number): boolean {
  return textBytes * 8 > budgetBytes;
}

/** Security words (whole words or word starts, ASCII case-insensitive; linear: one alternation, no nesting). */
export const SECURITY = /\b(?:secrets?|credentials?|passwords?|passphrases?|api[ _-]?keys?|private[ _-]keys?|access[ _-]tokens?|personal data|pii\b|saniti[sz]\w*|injection|xss|csrf|vulnerab\w*|owasp|security|cve-\d)/i;
/** Imperatives that state a hard rule (linear: one alternation, no nesting). */
export const IMPERATIVE = /\b(?:never|always|must|mustn't|do not|don't|shall not|under no circumstances)\b/i;
/** Verdict bits of `forceAt`: an imperative, a security word. */
const FORCE_IMPERATIVE = 1;
const FORCE_SECURITY = 2;

/**
 * Pattern characters of `FORCE_PATTERNS` that are classes, not literals (control codes: no
 * alternative has one): `[ _-]`, a digit, `s` or `z` (either case), and `\b` after a word
 * character (the end of the text, or a character that is not `[A-Za-z0-9_]`).
 */
const SEP = 1;
const DIGIT = 2;
const S_OR_Z = 3;
const WORD_END = 4;

/**
 * Whether `pattern` (see `FORCE_PATTERNS`) matches at `p` of `text` cut at `end`: a lower-case
 * letter matches both its cases (`c | 0x20` is the letter's code exactly for its two cases, and
 * never for a code ≥ 128), another literal only itself.
 */
function patternAt(text: string, p: number, end: number, pattern: string): boolean {
  let q = p;
  for (let j = 0; j < pattern.length; j++, q++) {
    const pc = pattern.charCodeAt(j);
    if (q >= end) return pc === WORD_END;
    const c = text.charCodeAt(q);
    if (pc >= 97 && pc <= 122) {
      if ((c | 0x20) !== pc) return false;
    } else if (pc > WORD_END) {
      if (c !== pc) return false;
    } else if (pc === SEP) {
      if (c !== 32 && c !== 95 && c !== 45) return false;
    } else if (pc === DIGIT) {
      if (c < 48 || c > 57) return false;
    } else if (pc === S_OR_Z) {
      const l = c | 0x20;
      if (l !== 115 && l !== 122) return false;
    } else return c >= 128 || WORD_CODE[c] === 0;
  }
  return true;
}

/**
 * The alternatives of `SECURITY` and `IMPERATIVE` as patterns (`patternAt`) with their verdict, by
 * the code of their first letter (lower case). A trailing `s?` or `\w*` never decides a match, so
 * it is left out; `api[ _-]?key` is two patterns. One table and one small matcher, not a branch
 * per word: a cold render compiles this verifier once for ~67k calls (bench/render), and each
 * inlined copy of a per-word test made that compilation larger (43 M instructions of TurboFan).
 */
const FORCE_PATTERNS: ReadonlyArray<ReadonlyArray<{ pattern: string; verdict: number }> | undefined> = (() => {
  const c = (code: number): string => String.fromCharCode(code);
  const alternatives: Array<[string, number]> = [
    ['secret', FORCE_SECURITY],
    ['security', FORCE_SECURITY],
    ['saniti' + c(S_OR_Z), FORCE_SECURITY],
    ['shall not' + c(WORD_END), FORCE_IMPERATIVE],
    ['credential', FORCE_SECURITY],
    ['csrf', FORCE_SECURITY],
    ['cve-' + c(DIGIT), FORCE_SECURITY],
    ['password', FORCE_SECURITY],
    ['passphrase', FORCE_SECURITY],
    ['personal data', FORCE_SECURITY],
    ['private' + c(SEP) + 'key', FORCE_SECURITY],
    ['pii' + c(WORD_END), FORCE_SECURITY],
    ['apikey', FORCE_SECURITY],
    ['api' + c(SEP) + 'key', FORCE_SECURITY],
    ['access' + c(SEP) + 'token', FORCE_SECURITY],
    ['always' + c(WORD_END), FORCE_IMPERATIVE],
    ['injection', FORCE_SECURITY],
    ['xss', FORCE_SECURITY],
    ['vulnerab', FORCE_SECURITY],
    ['owasp', FORCE_SECURITY],
    ['never' + c(WORD_END), FORCE_IMPERATIVE],
    ['must' + c(WORD_END), FORCE_IMPERATIVE],
    ["mustn't" + c(WORD_END), FORCE_IMPERATIVE],
    ['do not' + c(WORD_END), FORCE_IMPERATIVE],
    ["don't" + c(WORD_END), FORCE_IMPERATIVE],
    ['under no circumstances' + c(WORD_END), FORCE_IMPERATIVE],
  ];
  const byFirst: Array<Array<{ pattern: string; verdict: number }> | undefined> = new Array(128).fill(undefined);
  for (const [pattern, verdict] of alternatives) (byFirst[pattern.charCodeAt(0)] ??= []).push({ pattern, verdict });
  return byFirst;
})();

/**
 * Which of `SECURITY` and `IMPERATIVE` match at word start `p` of `text` cut at `end` (sticky, as
 * `re.lastIndex = p` on `text.slice(0, end)`, with `\b` before `p` already known):
 * `FORCE_SECURITY`, `FORCE_IMPERATIVE` or 0 (no two alternatives of different verdicts match at
 * one position: their words differ).
 */
function forceAt(text: string, p: number, end: number): number {
  const first = text.charCodeAt(p) | 0x20;
  const list = first < 128 ? FORCE_PATTERNS[first] : undefined;
  if (list === undefined) return 0;
  for (let k = 0; k < list.length; k++) {
    const a = list[k] as { pattern: string; verdict: number };
    if (patternAt(text, p, end, a.pattern)) return a.verdict;
  }
  return 0;
}

/**
 * The words of `SECURITY` and `IMPERATIVE` as a word-start set (word-starts.ts): the first three
 * characters of every alternative, the 2,000-unit cut of `forceOf` and `forceAt`. Verdicts are
 * bit sets (`FORCE_*`); the scan stops at the first security word. The secret gate runs it in
 * its own pass over a node's content (node-facts.ts), so a screened node's force costs no pass of
 * its own; `forceOfVerdict` of its verdict equals `forceOf` (property-tested).
 */
export const FORCE_WORDS: WordStarts = wordStarts(
  ['sec', 'cre', 'pas', 'api', 'pri', 'acc', 'per', 'pii', 'san', 'inj', 'xss', 'csr', 'vul', 'owa', 'cve', 'nev', 'alw', 'mus', 'do ', 'don', 'sha', 'und'],
  2000,
  forceAt,
  FORCE_SECURITY,
);

/** The force (order key 3b) of a verdict of `FORCE_WORDS`: 2 with a security word, else 1 with an imperative, else 0. */
export function forceOfVerdict(verdict: number): number {
  return (verdict & FORCE_SECURITY) !== 0 ? 2 : verdict & FORCE_IMPERATIVE;
}

/** `SECURITY` or `IMPERATIVE`, security first at each position (`forceOf`). */
const EITHER = new RegExp(`${SECURITY.source}|${IMPERATIVE.source}`, 'i');
const SECURITY_G = new RegExp(SECURITY.source, 'gi');
/** `SECURITY` at exactly `lastIndex`. */
const SECURITY_Y = new RegExp(SECURITY.source, 'iy');

/**
 * Force of a rule's text (order key 3b): 2 when it speaks of security (credentials, secrets, API
 * keys, passwords, personal data, input sanitising, injection, vulnerabilities), 1 when it is a
 * hard imperative (never, always, must, do not), else 0. Only the first 2,000 UTF-16 code units
 * are read (linear, bounded). Source: new-user trial 2 finding 2 ("never commit credentials"
 * must not lose to "periodically run X").
 */
export function forceOf(text: string): number {
  const t = text.length > 2000 ? text.slice(0, 2000) : text;
  // One scan for the first match of either (`search`: its position only, no match object): at
  // each position the security words are tried first, so the match there is a security word when
  // `SECURITY` matches at that very position; otherwise it is an imperative, no security word
  // starts at or before it, and only the rest of the text is searched for one (the same answer as
  // testing both on the whole text).
  const at = t.search(EITHER);
  if (at < 0) return 0;
  SECURITY_Y.lastIndex = at;
  if (SECURITY_Y.test(t)) return 2;
  SECURITY_G.lastIndex = at + 1;
  return SECURITY_G.test(t) ? 2 : 1;
}

/** The precomputed sort keys of one candidate. */
export interface OrderKey {
  pinned: boolean;
  focus: number;
  priority: number;
  /** Order key 3b (`forceOf`; 0 when absent). */
  force?: number;
  /** Order key 4 (`isOversize`). */
  big: boolean;
  rank: number;
  activation: number;
  /** Position among the candidates of its package and source file (key 7; 0 first). */
  pos: number;
  package: string;
  id: string;
}

const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Compare two candidates by the total order above (negative: `a` first). Usable as a sort comparator. */
export function compareKeys(a: OrderKey, b: OrderKey): number {
  if (a.pinned !== b.pinned) return a.pinned ? -1 : 1;
  if (a.focus !== b.focus) return b.focus - a.focus;
  if (a.priority !== b.priority) return b.priority - a.priority;
  if ((a.force ?? 0) !== (b.force ?? 0)) return (b.force ?? 0) - (a.force ?? 0);
  if (a.big !== b.big) return a.big ? 1 : -1;
  if (a.rank !== b.rank) return a.rank - b.rank;
  if (a.activation !== b.activation) return b.activation - a.activation;
  if (a.pos !== b.pos) return a.pos - b.pos;
  return cmpStr(a.package, b.package) || cmpStr(a.id, b.id);
}

/** Priority of a node under `priorities` (node id entry wins over package entry; default 0). */
export function priorityOf(priorities: Readonly<Record<string, number>>, node: Pick<MergedNode, 'id' | 'package'>): number {
  if (Object.hasOwn(priorities, node.id)) return priorities[node.id] as number;
  if (Object.hasOwn(priorities, node.package)) return priorities[node.package] as number;
  return 0;
}

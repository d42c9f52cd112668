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

/** True when `text[p, p + w.length)` is inside `text[0, end)` and equals `w` (lower-case ASCII; a letter matches both its cases). */
function wordAt(text: string, p: number, end: number, w: string): boolean {
  if (p + w.length > end) return false;
  for (let j = 0; j < w.length; j++) {
    const wc = w.charCodeAt(j);
    const c = text.charCodeAt(p + j);
    // `c | 0x20` is `wc` exactly for the two cases of the letter `wc` (and never for a code ≥ 128).
    if (wc >= 97 && wc <= 122 ? (c | 0x20) !== wc : c !== wc) return false;
  }
  return true;
}

/** `\b` after a word character at `q − 1` of `text` cut at `end` (`q ≤ end`): the end, or a character that is not `[A-Za-z0-9_]`. */
function endsWord(text: string, q: number, end: number): boolean {
  if (q >= end) return true;
  const c = text.charCodeAt(q);
  return c >= 128 || WORD_CODE[c] === 0;
}

/** `[ _-]` at `q` of `text` cut at `end`. */
function separatorAt(text: string, q: number, end: number): boolean {
  if (q >= end) return false;
  const c = text.charCodeAt(q);
  return c === 32 || c === 95 || c === 45;
}

/**
 * Which of `SECURITY` and `IMPERATIVE` match at word start `p` of `text` cut at `end` (sticky, as
 * `re.lastIndex = p` on `text.slice(0, end)`, with `\b` before `p` already known):
 * `FORCE_SECURITY`, `FORCE_IMPERATIVE` or 0. The alternatives of the two expressions, written out
 * by first letter; a trailing `s?` or `\w*` never decides a match, so it is not read.
 */
function forceAt(text: string, p: number, end: number): number {
  switch (text.charCodeAt(p) | 0x20) {
    case 115: // s
      if (wordAt(text, p, end, 'secret') || wordAt(text, p, end, 'security')) return FORCE_SECURITY;
      if (wordAt(text, p, end, 'saniti') && p + 6 < end) {
        const c = text.charCodeAt(p + 6) | 0x20;
        if (c === 115 || c === 122) return FORCE_SECURITY;
      }
      return wordAt(text, p, end, 'shall not') && endsWord(text, p + 9, end) ? FORCE_IMPERATIVE : 0;
    case 99: // c
      if (wordAt(text, p, end, 'credential') || wordAt(text, p, end, 'csrf')) return FORCE_SECURITY;
      if (wordAt(text, p, end, 'cve-') && p + 4 < end) {
        const d = text.charCodeAt(p + 4);
        if (d >= 48 && d <= 57) return FORCE_SECURITY;
      }
      return 0;
    case 112: // p
      if (wordAt(text, p, end, 'password') || wordAt(text, p, end, 'passphrase') || wordAt(text, p, end, 'personal data')) return FORCE_SECURITY;
      if (wordAt(text, p, end, 'private') && separatorAt(text, p + 7, end) && wordAt(text, p + 8, end, 'key')) return FORCE_SECURITY;
      return wordAt(text, p, end, 'pii') && endsWord(text, p + 3, end) ? FORCE_SECURITY : 0;
    case 97: // a
      if (wordAt(text, p, end, 'api') && (wordAt(text, p + 3, end, 'key') || (separatorAt(text, p + 3, end) && wordAt(text, p + 4, end, 'key')))) return FORCE_SECURITY;
      if (wordAt(text, p, end, 'access') && separatorAt(text, p + 6, end) && wordAt(text, p + 7, end, 'token')) return FORCE_SECURITY;
      return wordAt(text, p, end, 'always') && endsWord(text, p + 6, end) ? FORCE_IMPERATIVE : 0;
    case 105: // i
      return wordAt(text, p, end, 'injection') ? FORCE_SECURITY : 0;
    case 120: // x
      return wordAt(text, p, end, 'xss') ? FORCE_SECURITY : 0;
    case 118: // v
      return wordAt(text, p, end, 'vulnerab') ? FORCE_SECURITY : 0;
    case 111: // o
      return wordAt(text, p, end, 'owasp') ? FORCE_SECURITY : 0;
    case 110: // n
      return wordAt(text, p, end, 'never') && endsWord(text, p + 5, end) ? FORCE_IMPERATIVE : 0;
    case 109: // m
      if (wordAt(text, p, end, 'must') && endsWord(text, p + 4, end)) return FORCE_IMPERATIVE;
      return wordAt(text, p, end, "mustn't") && endsWord(text, p + 7, end) ? FORCE_IMPERATIVE : 0;
    case 100: // d
      if (wordAt(text, p, end, 'do not') && endsWord(text, p + 6, end)) return FORCE_IMPERATIVE;
      return wordAt(text, p, end, "don't") && endsWord(text, p + 5, end) ? FORCE_IMPERATIVE : 0;
    case 117: // u
      return wordAt(text, p, end, 'under no circumstances') && endsWord(text, p + 22, end) ? FORCE_IMPERATIVE : 0;
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

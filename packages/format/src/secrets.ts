/**
 * Secret screening (pure): find credentials in text and redact them, reporting only the *kind*
 * and position of each finding — never the value. Used by `ctxpkg create` (refuse/redact before
 * signing), the registry publish gate and the context-pack compiler (spec/pack.md "Secrets").
 *
 * Positions: `line` and `column` are 1-based; `column`, `length` and `offset` count UTF-16 code
 * units (JavaScript string indices), so `text.slice(offset, offset + length)` is the secret.
 *
 * Rules, in priority order (a more specific rule wins over a generic one on overlapping text):
 * 1. Provider formats with a fixed prefix or shape (PEM private keys, AWS, GCP, Azure, GitHub,
 *    GitLab, Slack, npm, OpenAI, Anthropic, Stripe, SendGrid, Hugging Face, JWT).
 * 2. Credentials in URLs (`scheme://user:password@host`) and HTTP Basic credentials
 *    (`Basic <base64 of user:password>`).
 * 3. Assignments whose key names a secret (`password = "…"`, `API_KEY: …`, `"token": "…"`) and
 *    whose value looks like a credential (see `looksLikeCredential`).
 * 4. Standalone high-entropy tokens — the entropy rule (see `isHighEntropyToken`):
 *    a run of `[A-Za-z0-9+/_-]` of at least 24 characters (trailing `=` padding ignored) that
 *    contains a digit, an upper-case and a lower-case letter, is not pure hex and not a UUID,
 *    whose Shannon entropy is at least 0.8·log2(min(length, 64)) bits per character, and whose
 *    average camelCase segment length is at most 3 (identifiers like `getElementsByTagName2`
 *    have long word segments; random tokens do not), and which is not base64 of mostly
 *    printable text (an encoded document) nor an SRI hash (`sha512-…`). Hex hashes and UUIDs are
 *    never reported on their own; a hex secret is found only in a keyed assignment (rule 3).
 * Documentation example values (the AWS docs keys, `<placeholders>`, `${VARS}`, `changeme`, …)
 * are not reported. Values already redacted (`[REDACTED:kind]`) are not reported again.
 */

import { buildSecretGate, GATE_ASSIGN, GATE_LITERAL, GATE_RUN } from './secret-gate.js';
import type { WordStarts } from './word-starts.js';
import { DOC_EXAMPLES, looksLikeCredential, mixedToken, PLACEHOLDER, safeAtob } from './secret-heuristics.js';
import { scanAssignments, scanTokenRuns, type Candidate, type Work } from './secret-scanners.js';

export { isHighEntropyToken, shannonEntropy } from './secret-heuristics.js';

/** One secret found in a text. Never contains the secret itself. */
export interface SecretFinding {
  /** Stable kind name, e.g. `aws_access_key_id`, `private_key`, `high_entropy`. */
  kind: string;
  /** 1-based line number. */
  line: number;
  /** 1-based column in UTF-16 code units. */
  column: number;
  /** Length of the secret in UTF-16 code units. */
  length: number;
  /** 0-based offset into the text in UTF-16 code units. */
  offset: number;
}

interface Rule {
  kind: string;
  /** The rule as one regular expression (flag `g`), or … */
  re?: RegExp;
  /** … a hand-written linear scanner appending candidates (adding its character visits to `work`). */
  scan?: (text: string, rank: number, out: Candidate[], work: Work) => void;
  /**
   * Cheap pre-check: the rule runs only when the text contains one of these literals (exact case,
   * as the rule's own regex requires), is gated by a key-named assignment (`GATE_ASSIGN`), or has a run of `TOKEN_RUN_LENGTH`
   * token characters. Must accept every text the rule can match.
   */
  hint: readonly string[] | typeof ASSIGNMENT | typeof TOKEN_RUN;
  /** Capture group holding the secret (0 = the whole match). */
  group?: number;
  /** Extra check on the secret text; false drops the candidate. */
  accept?: (value: string, match: RegExpExecArray) => boolean;
}

/** Key-name stems of the assignment hint (the gate checks them before each `:`/`=`). */
const ASSIGNMENT_STEMS = ['pass', 'pwd', 'secret', 'key', 'token', 'credential'];

/**
 * Marker hint: the rule runs when the gate saw a key-named assignment (`GATE_ASSIGN`: a stem in
 * the key run before a `:`/`=`, secret-gate.ts — exact, so no regular expression re-checks it).
 */
const ASSIGNMENT = 'assignment' as const;

/** Marker hint: the rule runs when the text has a run of `TOKEN_RUN_LENGTH` `[A-Za-z0-9+/_-]` characters. */
const TOKEN_RUN = 'token_run' as const;
const TOKEN_RUN_LENGTH = 24;

const RULES: Rule[] = [
  {
    kind: 'private_key', hint: ['PRIVATE KEY'],
    re: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,16384}?-----END \1PRIVATE KEY(?: BLOCK)?-----/g,
    accept: (v) => (v.match(/[A-Za-z0-9+/]/g)?.length ?? 0) >= 64,
  },
  {
    kind: 'private_key', hint: ['PRIVATE KEY'],
    re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:(?:\s|\\n)+(?:[A-Za-z0-9-]+: [^\n]*|[A-Za-z0-9+/=]{40,}))+/g,
  },
  { kind: 'aws_access_key_id', hint: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'APKA'], re: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b/g },
  {
    kind: 'aws_secret_access_key', hint: ASSIGNMENT,
    re: /aws_?secret_?(?:access_?)?key["']?\s{0,64}(?:[:=]|=>)\s{0,64}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/dgi,
    group: 1,
  },
  { kind: 'gcp_api_key', hint: ['AIza'], re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { kind: 'gcp_oauth_token', hint: ['ya29.'], re: /\bya29\.[0-9A-Za-z_-]{30,}/g },
  {
    kind: 'azure_storage_key', hint: ['AccountKey=', 'SharedAccessKey='],
    re: /(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,}={0,2})/dg,
    group: 1,
  },
  { kind: 'azure_client_secret', hint: ['Q~'], re: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g },
  { kind: 'github_token', hint: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b/g },
  { kind: 'github_token', hint: ['github_pat_'], re: /\bgithub_pat_[A-Za-z0-9_]{60,255}\b/g },
  { kind: 'gitlab_token', hint: ['glpat-', 'glptt-', 'gldt-', 'glrt-', 'glsoat-', 'glffct-'], re: /\b(?:glpat|glptt|gldt|glrt|glsoat|glffct)-[0-9A-Za-z_-]{20,}/g },
  { kind: 'slack_token', hint: ['xoxa-', 'xoxb-', 'xoxe-', 'xoxo-', 'xoxp-', 'xoxr-', 'xoxs-'], re: /\bxox[abeoprs]-(?:[0-9A-Za-z]+-){1,4}[0-9A-Za-z]{6,}/g },
  { kind: 'slack_webhook', hint: ['hooks.slack.com'], re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/]{20,}/g },
  { kind: 'npm_token', hint: ['npm_'], re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'npm_token', hint: [':_authToken='], re: /:_authToken=([^\s"'$][^\s"']{7,})/dg, group: 1, accept: (v) => looksLikeCredential(v) },
  { kind: 'anthropic_api_key', hint: ['sk-ant-'], re: /\bsk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{40,}/g },
  {
    kind: 'openai_api_key', hint: ['sk-'],
    re: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g,
    accept: (v) => mixedToken(v.slice(3)) || /T3BlbkFJ/.test(v),
  },
  { kind: 'stripe_key', hint: ['_live_', '_test_'], re: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b/g },
  { kind: 'stripe_key', hint: ['whsec_'], re: /\bwhsec_[0-9A-Za-z]{24,}\b/g },
  { kind: 'sendgrid_api_key', hint: ['SG.'], re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  { kind: 'huggingface_token', hint: ['hf_'], re: /\bhf_[A-Za-z]{34,}\b/g, accept: (v) => /[A-Z]/.test(v) && /[a-z]/.test(v.slice(3)) },
  { kind: 'basic_auth', hint: ['Basic'], re: /\bBasic[ \t]+([A-Za-z0-9+/]{12,}={0,2})(?![A-Za-z0-9+/=])/dg, group: 1, accept: (v) => /^[^:]+:.+$/.test(safeAtob(v)) },
  { kind: 'jwt', hint: ['eyJ'], re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.(?:[A-Za-z0-9_-]{16,})?/g },
  {
    kind: 'url_credentials', hint: ['://'],
    re: /\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}:\/\/([^\s/:@'"`<>]{1,128}):([^\s/@'"`<>]{3,256})@[A-Za-z0-9.-]+/dg,
    group: 2,
    accept: (v, m) => v !== m[1] && !PLACEHOLDER.test(v) && !/^\$|\$\{|\{\{|^pass$/i.test(v),
  },
  { kind: 'secret_assignment', hint: ASSIGNMENT, scan: scanAssignments },
  { kind: 'high_entropy', hint: TOKEN_RUN, scan: scanTokenRuns },
];

/** The literal hints of all rules (for the gate). */
const HINTS = RULES.flatMap((r) => (Array.isArray(r.hint) ? (r.hint as string[]) : []));

/** One pass per text decides which rule groups can match (`secret-gate.ts`; exact, never hides a match). */
const gate = buildSecretGate(HINTS, TOKEN_RUN_LENGTH, ASSIGNMENT_STEMS);

/**
 * The gate of `surelyClean` with a word-start scan in the same pass (secret-gate.ts
 * `buildSecretGate` with `words`): the function returns `flags | verdict << GATE_WORDS_SHIFT`,
 * and `text` is surely clean exactly when `(flags & GATE_FLAGS) === 0`. Build it once (it owns
 * its tables); used by node-facts.ts to get `forceOf` of a node's content from its screening pass.
 */
export function surelyCleanWith(words: WordStarts): (text: string) => number {
  return buildSecretGate(HINTS, TOKEN_RUN_LENGTH, ASSIGNMENT_STEMS, words);
}

/** Rule indices (= ranks) by the kind of hint that gates them. */
const LITERAL_RULES: number[] = [];
const ASSIGNMENT_RULES: number[] = [];
const RUN_RULES: number[] = [];
RULES.forEach((r, i) => (r.hint === TOKEN_RUN ? RUN_RULES : r.hint === ASSIGNMENT ? ASSIGNMENT_RULES : LITERAL_RULES).push(i));

/** Run one rule over `text`, appending its candidates. */
function runRule(rule: Rule, rank: number, text: string, out: Candidate[], work: Work): void {
  if (rule.scan) {
    rule.scan(text, rank, out, work);
    return;
  }
  const re = rule.re as RegExp;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    let value = m[0];
    let start = m.index;
    const groups = rule.group ? [rule.group] : [];
    for (const g of groups) {
      const span = m.indices?.[g];
      if (span) {
        value = m[g] as string;
        start = span[0];
        break;
      }
    }
    if (value.length === 0 || DOC_EXAMPLES.has(value)) continue;
    if (rule.accept && !rule.accept(value, m)) continue;
    out.push({ kind: rule.kind, start, end: start + value.length, rank });
  }
}

/** All rule candidates of `text`; rules whose hint is absent are not run at all. */
function collect(text: string, work: Work): Candidate[] | undefined {
  work.steps += text.length; // the gate's one pass
  const flags = gate(text);
  if (flags === 0) return undefined;
  let out: Candidate[] | undefined;
  if (flags & GATE_LITERAL) {
    for (const i of LITERAL_RULES) {
      const rule = RULES[i] as Rule;
      if ((rule.hint as readonly string[]).some((h) => text.includes(h))) runRule(rule, i, text, (out ??= []), work);
    }
  }
  if (flags & GATE_ASSIGN) for (const i of ASSIGNMENT_RULES) runRule(RULES[i] as Rule, i, text, (out ??= []), work);
  if (flags & GATE_RUN) for (const i of RUN_RULES) runRule(RULES[i] as Rule, i, text, (out ??= []), work);
  return out;
}

/**
 * Resolve overlaps: lower rule rank (more specific) first, then earlier start, then longer — the
 * first candidate that overlaps none kept so far is kept. Linear after sorting: candidates are
 * merged rank by rank into the sorted, non-overlapping kept list (one walk per rank).
 */
function resolve(cands: Candidate[]): Candidate[] {
  const ordered = [...cands].sort((a, b) => a.rank - b.rank || a.start - b.start || b.end - a.end);
  let kept: Candidate[] = [];
  for (let r = 0; r < ordered.length; ) {
    let q = r;
    while (q < ordered.length && (ordered[q] as Candidate).rank === (ordered[r] as Candidate).rank) q++;
    const accepted: Candidate[] = [];
    let k = 0;
    let lastEnd = -1;
    for (let x = r; x < q; x++) {
      const c = ordered[x] as Candidate;
      while (k < kept.length && (kept[k] as Candidate).end <= c.start) k++;
      if (k < kept.length && (kept[k] as Candidate).start < c.end) continue; // overlaps a kept one
      if (c.start < lastEnd) continue; // overlaps one of this rank just accepted
      accepted.push(c);
      lastEnd = c.end;
    }
    const merged: Candidate[] = [];
    let a = 0;
    let b = 0;
    while (a < kept.length || b < accepted.length) {
      if (b >= accepted.length || (a < kept.length && (kept[a] as Candidate).start < (accepted[b] as Candidate).start)) merged.push(kept[a++] as Candidate);
      else merged.push(accepted[b++] as Candidate);
    }
    kept = merged;
    r = q;
  }
  return kept;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * Find secrets in `text`. Returns findings sorted by offset, non-overlapping, each with its kind
 * and position (never the value). Pure and deterministic; throws nothing.
 * Rules: module docstring (spec/pack.md "Secrets").
 */
export function scanSecrets(text: string): SecretFinding[] {
  return scanSecretsCounted(text, { steps: 0 });
}

/**
 * The operation count of `scanSecrets(text)`: characters visited by the gate and the hand-written
 * scanners (secret-scanners.ts). For tests of linearity (issue 11 item 2); the expression rules
 * are bounded per start position by construction (module docstring) and timed in bench/secrets.
 */
export function secretScanWork(text: string): number {
  const work: Work = { steps: 0 };
  scanSecretsCounted(text, work);
  return work.steps;
}

function scanSecretsCounted(text: string, work: Work): SecretFinding[] {
  if (text.length === 0) return [];
  const cands = collect(text, work);
  if (!cands || cands.length === 0) return [];
  const found = resolve(cands);
  const starts = lineStarts(text);
  let li = 0;
  return found.map((c) => {
    while (li + 1 < starts.length && (starts[li + 1] as number) <= c.start) li++;
    return { kind: c.kind, line: li + 1, column: c.start - (starts[li] as number) + 1, length: c.end - c.start, offset: c.start };
  });
}

/**
 * True when `scanSecrets(text)` certainly finds nothing because the one-pass gate rules out every
 * rule (no literal hint, no key-named assignment, no run of 24 token characters). A text that is
 * not surely clean may still be clean. Cheap (one pass).
 */
export function surelyClean(text: string): boolean {
  return gate(text) === 0;
}

/**
 * Replace every secret found by `scanSecrets` with `[REDACTED:<kind>]`. Returns the new text and
 * the findings (positions refer to the original text). Idempotent: redacting the output again
 * finds nothing.
 */
export function redactSecrets(text: string): { text: string; findings: SecretFinding[] } {
  const findings = scanSecrets(text);
  if (findings.length === 0) return { text, findings };
  let out = '';
  let at = 0;
  for (const f of findings) {
    out += text.slice(at, f.offset) + `[REDACTED:${f.kind}]`;
    at = f.offset + f.length;
  }
  out += text.slice(at);
  return { text: out, findings };
}

/** Distinct kinds of a list of findings, sorted (what a report may show). */
export function secretKinds(findings: readonly SecretFinding[]): string[] {
  return [...new Set(findings.map((f) => f.kind))].sort();
}

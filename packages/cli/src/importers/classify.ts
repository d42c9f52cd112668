/**
 * The deterministic node-type classifier for imported bullets and paragraphs
 * (spec/format.md "Importers, provenance and scope" § Classifier). The first rule that matches wins:
 *
 * 1. `gotcha` — a prohibition or warning: never, do not/don't, must not/mustn't, should not/
 *    shouldn't, cannot/can't (as advice), avoid, beware, careful, caution, warning, pitfall,
 *    gotcha, forbidden, prohibited, not allowed, refrain from, ⚠.
 * 2. `procedure` — something to run or a sequence of steps: an item of an ordered list, a
 *    fenced code block in a shell language, a line starting with `$ `, or text that starts with a
 *    run-type verb (run, execute, install, build, invoke, start, launch, restart, re-run, type,
 *    call, cd, clone, check out) and contains an inline code span, or text containing
 *    "run `…`"/"execute `…`"/"invoke `…`".
 * 3. `convention` — a prescription: always, must, should, shall, prefer, make sure, ensure,
 *    required, recommended, or text that starts with an imperative verb from `IMPERATIVES`.
 *    Other fenced code blocks (examples of how code should look) are conventions too.
 * 4. `fact` — everything else.
 *
 * Matching is case-insensitive on whole words of the text with inline code spans removed (so a
 * command named `avoid-x` does not make a gotcha) and emphasis markers (`*`, `_`, `~`) dropped, so
 * `**Do _not_ run …**` reads as "Do not run" (a gotcha, not a procedure; new-user trial).
 */

const GOTCHA = /\b(never|do\s+not|don['’]t|must\s+not|mustn['’]t|should\s+not|shouldn['’]t|cannot|can['’]t|avoid|avoiding|beware|careful|caution|warning|pitfall|gotcha|forbidden|prohibited|not\s+allowed|refrain\s+from)\b|⚠/i;
const RUN_VERB = /^(run|execute|install|build|invoke|start|launch|restart|re-run|rerun|type|call|cd|clone|check\s+out)\b/i;
const RUN_WITH_CODE = /\b(run|execute|invoke)\s+`[^`]+`/i;
const PRESCRIBE = /\b(always|must|should|shall|prefer|make\s+sure|ensure|required|recommended)\b/i;
const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'zsh', 'fish', 'console', 'shell-session', 'powershell', 'ps1', 'pwsh', 'cmd', 'bat']);

/** Imperative verbs that make a sentence-initial instruction a convention (lowercase). */
export const IMPERATIVES = [
  'add', 'apply', 'ask', 'avoid', 'be', 'call', 'cache', 'check', 'choose', 'co-locate', 'colocate', 'commit',
  'consider', 'create', 'define', 'depend', 'describe', 'document', 'emit', 'enable', 'export', 'favor', 'favour',
  'follow', 'format', 'give', 'handle', 'implement', 'import', 'include', 'indent', 'keep', 'leverage', 'limit',
  'log', 'maintain', 'mark', 'match', 'minimize', 'mock', 'move', 'name', 'optimize', 'pass', 'pin', 'place',
  'prefix', 'preserve', 'prioritize', 'profile', 'provide', 'put', 'read', 'record', 'reference', 'rely', 'remove',
  'rename', 'respect', 'return', 'reuse', 'sign', 'sort', 'split', 'store', 'structure', 'surround', 'test',
  'throw', 'treat', 'update', 'use', 'validate', 'verify', 'wrap', 'write',
];
const IMPERATIVE_SET = new Set(IMPERATIVES);

export type ImportedType = 'gotcha' | 'procedure' | 'convention' | 'fact';

/** What kind of block the text came from; affects rule 2 and 3. */
export interface BlockInfo {
  ordered?: boolean;
  /** For fenced code: the info-string language (lowercase), '' when none. */
  codeLang?: string;
}

function stripInlineCode(text: string): string {
  return text.replace(/`[^`\n]*`/g, ' ');
}

/** Text without emphasis markers (`*`, `_`, `~`): `Do _not_` → `Do not`. One linear pass. */
function stripEmphasis(text: string): string {
  return text.replace(/[*_~]+/g, '');
}

function firstWord(text: string): string {
  const t = text.replace(/^[\s*_>#\-+\d.)[\]]+/, '').replace(/^\*\*|^__/, '');
  const m = /^([A-Za-z][A-Za-z-]*)/.exec(t);
  return m ? m[1].toLowerCase() : '';
}

/** Classify one imported block. Pure and deterministic. */
export function classifyBlock(text: string, info: BlockInfo = {}): ImportedType {
  if (info.codeLang !== undefined) {
    const firstLine = text.split('\n')[1] ?? '';
    return SHELL_LANGS.has(info.codeLang) || /^\s*\$ /.test(firstLine) ? 'procedure' : 'convention';
  }
  const prose = stripEmphasis(stripInlineCode(text));
  if (GOTCHA.test(prose)) return 'gotcha';
  if (info.ordered) return 'procedure';
  const trimmed = text.trim();
  if (/^\$ /.test(trimmed)) return 'procedure';
  const lead = trimmed.replace(/^[*_]+/, '');
  if ((RUN_VERB.test(lead) && /`[^`]+`/.test(text)) || RUN_WITH_CODE.test(text)) return 'procedure';
  if (PRESCRIBE.test(prose)) return 'convention';
  if (IMPERATIVE_SET.has(firstWord(trimmed))) return 'convention';
  return 'fact';
}

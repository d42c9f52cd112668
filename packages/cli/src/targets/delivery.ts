/**
 * The one selection of `ctxpkg sync` (spec/pack.md §11 "Tiers"): which installed nodes reach
 * every enabled target, in which tier, and the text of each tier — computed once, before any
 * target encodes it, so the same nodes reach every agent (ARCHITECTURE.md "Delivery: one
 * selection, many encodings"). Nothing is written here.
 *
 * - always-on: a pack of the pinned and unscoped nodes (`alwaysOnFilter`), pins first, within
 *   `context.sync.max_bytes` and every agent target's documented cap, markers and frontmatter
 *   included; its header says, in plain sentences, which command prints the rules of each
 *   path-scoped rule set before working on files it matches (those lines within a quarter of the
 *   cap, `ruleSetLines`: package text never makes the header alone overrun it), and how many
 *   items did not fit and how to reach them.
 * - path-scoped: one pack per rule set (`ruleSetsOf`) within `context.sync.file_max_bytes` and
 *   every scoping agent target's cap. A rule set whose header and frontmatter alone do not fit
 *   is delivered on demand instead, with a warning: listed in the always-on header like the
 *   others (the command that prints its rules), no rule file — one package's oversized set never
 *   stops the delivery of everything else.
 * - on demand: the rest; counted in each header and listed in the sync receipt.
 *
 * The texts never depend on which targets are enabled (only where they are written does): caps
 * and frontmatter overheads are those of every target module (`AGENT_TARGETS`), and the always-on
 * header names a command, never one target's rule file, so turning an agent on or off does not
 * rewrite AGENTS.md or move a node between tiers (test/sync-one-selection.test.ts).
 */
import type { MergedGraph } from '@ctxpkg/format';
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format/errors';
import { compilePack, type PackInput } from '@ctxpkg/format/pack/compile';
import { escapeInline, hasInvisible, shellArg } from '@ctxpkg/format/pack/escape';
import { globProblem, matchesOnlyEmptyPath } from '@ctxpkg/format/pack/glob';
import type { PackReceipt } from '@ctxpkg/format/pack/receipt';
import { computeScopes, STRUCTURAL_TYPES } from '@ctxpkg/format/pack/scope';
import { checkPins } from '@ctxpkg/format/pack/screen';
import { alwaysOnFilter, ruleSetsOf, type RuleSet } from '@ctxpkg/format/pack/tiers';
import { redactSecrets, scanSecrets, surelyClean } from '@ctxpkg/format/secrets';
import { AGENT_TARGETS, patternsFor, type AgentTarget } from './agents/index.js';
import { blockOverhead } from './blocks.js';
import type { ProjectContext } from './context.js';
import { readPinTexts } from './pins-record.js';

/** A rule set with its compiled text and where each scoping target writes it. */
export interface DeliveredRuleSet {
  set: RuleSet;
  /** Patterns usable in frontmatter (package text: controls and line breaks refused). */
  patterns: string[];
  /**
   * `<package>: <first source>` — names the set in frontmatter descriptions. No version, so a
   * version bump does not rewrite every rule file's frontmatter (the receipt has the version).
   */
  title: string;
  /**
   * What the set is about, for agents whose rule files carry a description (Cursor shows it in
   * its rule list): the frontmatter `description` of the set's first source file that had one
   * (the importer's `<file>:frontmatter:description` node), else `<package>: <H1>` of its first
   * source file when that file has a title of its own (`headingDescriptionOf`); absent otherwise
   * (the agent then writes `title`).
   */
  description?: string;
  body: string;
  receipt: PackReceipt;
  /** Target id → path of its rule file (none for a target that can carry none of the patterns). */
  files: Map<string, string>;
}

/** A rule set whose header does not fit `context.sync.file_max_bytes`: listed, read on demand. */
export interface OnDemandRuleSet {
  set: RuleSet;
  patterns: string[];
  title: string;
}

export interface Delivery {
  alwaysOn: { body: string; receipt: PackReceipt };
  ruleSets: DeliveredRuleSet[];
  /** Rule sets delivered on demand because their header alone exceeds the rule-file cap (each also a warning). */
  onDemandSets: OnDemandRuleSet[];
  /** Notes for the report (patterns refused, caps lowered). */
  notes: string[];
  /** Problems to act on that did not stop the delivery: each broken pin (delivered without it), with its fix. */
  warnings: string[];
}

/**
 * A pattern agents can take: one the bounded glob matcher accepts (`globProblem`: at most 512
 * characters, relative, no `..`, bounded braces, no controls) and that can match a file (not
 * `matchesOnlyEmptyPath`: `{,}` scopes a rule to no file, a rule file for it would apply nowhere
 * and Cursor's bare `globs:` line would be empty), without invisible characters,
 * without a backtick and without a secret (`scanSecrets`). Patterns are package text written
 * outside the untrusted fence — the always-on header lists them as code spans, rule files put
 * them in their title and frontmatter — so a backtick would close the code span and leave the
 * rest of the pattern as ctxpkg's own words (`` src/` Ignore previous instructions `/** ``),
 * and a secret would be written where the pack withholds it (spec/pack.md §3, §11).
 */
export function usablePattern(p: string): boolean {
  return globProblem(p) === undefined && !matchesOnlyEmptyPath(p) && !hasInvisible(p) && !p.includes('`') && (surelyClean(p) || scanSecrets(p).length === 0);
}

/** The rule file path of `set` for a scoping target. */
export function ruleFilePath(t: AgentTarget, set: RuleSet): string {
  const s = t.scoped as NonNullable<AgentTarget['scoped']>;
  return `${s.dir}/ctxpkg-${set.slug}${s.ext}`;
}

/** Per package: the merged graph restricted to its nodes, the edges between them, its input and conflicts. */
function packageGraphs(graph: MergedGraph): Map<string, MergedGraph> {
  const out = new Map<string, MergedGraph>();
  const of = (pkg: string): MergedGraph => {
    let g = out.get(pkg);
    if (!g) {
      g = { format: graph.format, inputs: graph.inputs.filter((i) => i.package === pkg), nodes: [], edges: [], conflicts: [] };
      out.set(pkg, g);
    }
    return g;
  };
  const pkgOf = new Map<string, string>();
  for (const n of graph.nodes) {
    of(n.package).nodes.push(n);
    pkgOf.set(n.id, n.package);
  }
  for (const e of graph.edges) {
    const p = pkgOf.get(e.from);
    if (p !== undefined && pkgOf.get(e.to) === p) of(p).edges.push(e);
  }
  for (const c of graph.conflicts ?? []) {
    const p = pkgOf.get(c.from);
    if (p !== undefined) of(p).conflicts.push(c);
    const q = pkgOf.get(c.to);
    if (q !== undefined && q !== p) of(q).conflicts.push(c);
  }
  return out;
}

/** Longest frontmatter description written (characters); longer ones are cut with `…`. */
const MAX_DESCRIPTION = 500;

/** Longest source path in a rule set's title (characters, `…` included), as the pack caps a heading. */
export const MAX_TITLE_SOURCE = 200;

/**
 * `text` cut to `max` UTF-16 code units with `…` when longer, never between the two halves of a
 * surrogate pair. The source path is package text and the title goes into every rule file's
 * frontmatter: a 10 KB path made the frontmatter alone overrun `file_max_bytes`.
 */
function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * The description of a rule set: the content of the importer's `<file>:frontmatter:description`
 * node of its first source that has one (one line, at most `MAX_DESCRIPTION` characters), each
 * secret replaced by `[REDACTED:<kind>]` — it is written into the rule file's frontmatter, outside
 * any pack, so it gets the redaction headers get (spec/pack.md §3).
 */
function descriptionOf(graph: Pick<MergedGraph, 'nodes'>, set: RuleSet): string | undefined {
  const members = new Set(set.nodes);
  for (const src of set.sources) {
    const id = `${set.package}#${src}:frontmatter:description`;
    if (!members.has(id)) continue;
    const n = graph.nodes.find((x) => x.id === id);
    const line = n?.content.replace(/\s+/g, ' ').trim();
    const text = line === undefined || surelyClean(line) ? line : redactSecrets(line).text;
    if (text) return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
  }
  return undefined;
}

/**
 * `<package>: <title>` of the first source file of `set` when that file has a title of its own:
 * the first line of its root section (the importer's section with the file's own id, headed by the
 * file's H1; without an H1 it holds the path), each secret redacted and escaped as a section
 * title is (`escapeInline`, at most `MAX_TITLE_SOURCE` characters) — so a rule file's description
 * reads "@acme/rules: Database migrations", not the path (new-user finding: Cursor lists rules by
 * their description). `rootTitles`: root-section id → content, one pass over the graph.
 */
function headingDescriptionOf(rootTitles: ReadonlyMap<string, string>, set: RuleSet): string | undefined {
  const src = set.sources[0];
  if (src === undefined) return undefined;
  const content = rootTitles.get(`${set.package}#${src}`);
  if (content === undefined) return undefined;
  const nl = content.indexOf('\n');
  const line = (nl < 0 ? content : content.slice(0, nl)).trim();
  if (line === '' || line === src) return undefined;
  const clean = surelyClean(line) ? line : redactSecrets(line).text;
  return `${set.package}: ${escapeInline(clean, MAX_TITLE_SOURCE)}`;
}

/** Root sections (a section whose local id is its file path: the file's H1, else the path) by id → content. */
function rootTitlesOf(graph: Pick<MergedGraph, 'nodes'>): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of graph.nodes) if (n.type === 'section' && n.file_path !== undefined && n.local_id === n.file_path) out.set(n.id, n.content);
  return out;
}

/** Bytes of a UTF-8 string. */
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * Compile one tier's text within `cap` bytes for the whole output, `overhead` of which are
 * markers and frontmatter. Throws `E_BUDGET` naming `context.sync.<setting>`, its value and the
 * size needed (spec/pack.md §11) when even the frame and pinned nodes do not fit.
 */
function compileWithin(what: string, setting: 'max_bytes' | 'file_max_bytes', cap: number, overhead: number, input: Omit<PackInput, 'maxBytes'>) {
  try {
    return compilePack({ ...input, maxBytes: Math.max(1, cap - overhead) });
  } catch (err) {
    if (!isCtxpkgError(err) || err.code !== 'E_BUDGET') throw err;
    const inner = Number(err.details?.required_bytes);
    const pinned = Number(err.details?.pinned ?? 0);
    const need = Number.isSafeInteger(inner) ? inner + overhead : undefined;
    const contents = pinned > 0 ? `its ${pinned} pinned ${pinned === 1 ? 'node' : 'nodes'} and header` : 'its header alone';
    throw new CtxpkgError('E_BUDGET', `${what}: ${contents} need ${need ?? 'more than'} bytes, more than "context.sync.${setting}" in ctxpkg.json allows (currently ${cap})`, {
      hint: `set "context.sync.${setting}" in ctxpkg.json to at least ${need ?? cap + 1}${pinned > 0 ? ', or unpin nodes ("context.pins")' : ''}`,
      details: { setting: `context.sync.${setting}`, current: cap, required_bytes: need ?? null, pinned },
    });
  }
}

/**
 * A rule set's pack within the rule-file cap (`compileWithin`), or the `E_BUDGET` error saying
 * what its header needs when even that does not fit (a rule set has no pinned nodes: only its
 * frame and frontmatter are mandatory). Other errors are thrown.
 */
function ruleSetWithin(what: string, cap: number, overhead: number, input: Omit<PackInput, 'maxBytes'>): ReturnType<typeof compilePack> | CtxpkgError {
  try {
    return compileWithin(what, 'file_max_bytes', cap, overhead, input);
  } catch (err) {
    if (isCtxpkgError(err) && err.code === 'E_BUDGET') return err as CtxpkgError;
    throw err;
  }
}

/**
 * How an agent without path scoping gets a rule set: a render focused on its first pattern, which
 * selects the nodes whose scope covers that pattern — this rule set, and any other with a pattern
 * covering it — and nothing else (spec/pack.md §7 "Focus", test/sync-focus-commands.test.ts). A command, not a
 * target's rule file: the file exists only when that target is enabled, and the always-on text
 * must not depend on the enabled targets.
 */
function whereToRead(rs: Pick<DeliveredRuleSet, 'patterns'>): string {
  // The first pattern that stays one shell argument (`shellArg`: patterns are package text, and
  // agents run this line as written); none: the command with a path for the agent to fill in.
  for (const p of rs.patterns) {
    const arg = shellArg(p);
    if (arg !== undefined) return `run \`ctxpkg render --focus ${arg}\``;
  }
  return READ_BY_PATH;
}

/** The command of a rule-set line that names no pattern: the agent fills in the file's path. */
const READ_BY_PATH = 'run `ctxpkg render --focus <the path of the file>`';

/** A rule set the always-on header lists: its patterns, and whether it has no rule file (on demand). */
type ListedRuleSet = Pick<DeliveredRuleSet, 'patterns'> & { onDemand?: boolean };

/** Patterns as inline code, comma-separated (a `**` is not read as emphasis). */
const codeList = (patterns: readonly string[]): string => patterns.map((p) => `\`${p}\``).join(', ');

/** Rule-set entries listed in the always-on header; the rest are counted (bounded header). */
export const MAX_LISTED_RULE_SETS = 12;

/**
 * The rule-set lines of the always-on header (one per listed set, not the sentence before them
 * nor the count line after them) take at most this share of the always-on cap, in UTF-8 bytes:
 * `floor(cap / RULE_SET_LISTING_DIVISOR)` — 2,048 bytes at the default 8,192 (spec/pack.md §11
 * "Tiers"). Patterns are package text of up to 512 characters each: unbounded, twelve sets of five
 * such patterns needed ~24 KB and made every sync fail with `E_BUDGET` (attack pass 2, finding 4).
 */
export const RULE_SET_LISTING_DIVISOR = 4;

/** Longest rule-set line of the always-on header, in UTF-8 bytes (also at most a quarter of the listing share). */
export const MAX_RULE_SET_LINE = 1024;

/**
 * The header line of one rule set within `max` UTF-8 bytes (as the renderer writes it, through
 * `escapeInline`, whose 2,000-character cut never reaches a line this short), or undefined when
 * not even one pattern fits: `- <patterns>[ and N more patterns]: <command>[ (every agent: …)]`.
 * The patterns are code spans in order, each one that does not fit left out and counted. The
 * command is `whereToRead`'s (focused on the first quotable pattern) when the line shows that
 * pattern and no fewer patterns than with `READ_BY_PATH`, else `READ_BY_PATH` — a command is
 * never cut, so each stays runnable as written (`shellArg`). Linear in the patterns' length.
 */
function ruleSetLine(rs: ListedRuleSet, max: number): string | undefined {
  const tail = rs.onDemand ? ' (every agent: too large for a rule file)' : '';
  // The patterns shown with the command `where`: in order, each one that does not fit left out.
  const fit = (where: string): string[] => {
    // Room for the longest count phrase this set can need and for the `[escaped] ` prefix of a
    // line that reads like a marker, so neither can make a line overrun.
    let used = bytes(`[escaped] - : ${where}${tail}`) + bytes(` and ${rs.patterns.length} more patterns`);
    const shown: string[] = [];
    for (const p of rs.patterns) {
      const size = bytes(p) + 2 + (shown.length > 0 ? 2 : 0);
      if (used + size > max) continue;
      shown.push(p);
      used += size;
    }
    return shown;
  };
  const named = whereToRead(rs);
  const byPath = fit(READ_BY_PATH);
  const withNamed = named === READ_BY_PATH ? byPath : fit(named);
  // The command names a pattern only when the line shows that pattern and no fewer patterns than
  // the path form would (a long first pattern would be written twice).
  const namedShown = withNamed.some((p) => named === `run \`ctxpkg render --focus ${shellArg(p)}\``);
  const [shown, where] = namedShown && withNamed.length >= byPath.length ? [withNamed, named] : [byPath, READ_BY_PATH];
  if (shown.length === 0) return undefined;
  const left = rs.patterns.length - shown.length;
  return `- ${codeList(shown)}${left > 0 ? ` and ${left} more ${left === 1 ? 'pattern' : 'patterns'}` : ''}: ${where}${tail}`;
}

/**
 * The header lines naming the path-scoped rule sets (spec/pack.md §11 "Tiers"): one plain
 * sentence, then one line per rule set — its patterns and what to read (`ruleSetLine`) — at most
 * `MAX_LISTED_RULE_SETS` lines within `floor(alwaysOnCap / RULE_SET_LISTING_DIVISOR)` bytes
 * together, each within `min(MAX_RULE_SET_LINE, share / 4)` bytes; every set not listed (beyond
 * the count, or its line does not fit) is counted in a last line naming the command for a path.
 * So the header stays bounded whatever the packages hold.
 */
function ruleSetLines(sets: readonly ListedRuleSet[], alwaysOnCap: number): string[] {
  if (sets.length === 0) return [];
  const lines = ['Some rules apply only to certain files. Before you work on a file that matches a pattern below, run the command named there to read its rules (agents with path-scoped rule files of their own load them by themselves):'];
  const share = Math.floor(alwaysOnCap / RULE_SET_LISTING_DIVISOR);
  const lineMax = Math.min(MAX_RULE_SET_LINE, Math.floor(share / 4));
  let used = 0;
  let more = 0;
  // A set delivered on demand has no rule file: every agent runs its command.
  for (const rs of sets) {
    const line = lines.length - 1 < MAX_LISTED_RULE_SETS ? ruleSetLine(rs, lineMax) : undefined;
    const size = line === undefined ? 0 : bytes(escapeInline(line, 2000)) + 1;
    if (line === undefined || used + size > share) {
      more++;
      continue;
    }
    lines.push(line);
    used += size;
  }
  if (more > 0) lines.push(`- ${more} ${lines.length > 1 ? 'more ' : ''}rule ${more === 1 ? 'set' : 'sets'} for other paths: run \`ctxpkg render --focus <path>\` to get the rules for a path`);
  return lines;
}

/**
 * Compute the delivery for `targets` (the enabled ones). A pin that names nothing installed is a
 * warning (`warnings`: the rest is delivered), and so is a rule set whose header and frontmatter
 * alone exceed the rule-file cap (`onDemandSets`: listed in the always-on header, no rule file);
 * throws `E_BUDGET` when the always-on header and pinned nodes do not fit the always-on cap.
 */
export function computeDelivery(project: ProjectContext, targets: readonly AgentTarget[], now: string): Delivery {
  const { graph, config } = project;
  const notes: string[] = [];
  const deliverable = graph.nodes.filter((n) => !STRUCTURAL_TYPES.has(n.type));
  const pinTexts = readPinTexts(project.root);
  const { pinned, broken } = checkPins(config.pack.pins, graph, deliverable, pinTexts);
  const scopes = computeScopes(graph);
  const base: Omit<PackInput, 'maxBytes'> = { graph, policy: config.pack, now, pinTexts, trusted: project.trusted, ...(project.installed ? { read: project.read, builtHere: project.builtHere } : {}) };
  // Caps and overheads come from every target module, enabled or not: one selection, whatever
  // the enabled targets (see the module docstring). `targets` only decides where files go.
  const every = [...AGENT_TARGETS.values()];
  const scoping = targets.filter((t) => t.scoped !== null);
  const everyScoping = every.filter((t) => t.scoped !== null);

  // Path-scoped tier: one pack per rule set, within every scoping target's cap.
  const ruleSets: DeliveredRuleSet[] = [];
  // Rule sets whose header alone does not fit the rule-file cap: delivered on demand.
  const onDemandSets: OnDemandRuleSet[] = [];
  // Every set the always-on header lists, delivered or on demand, in `ruleSetsOf` order.
  const listed: ListedRuleSet[] = [];
  // Scope patterns an enabled target's frontmatter cannot carry (`patternsFor`), one line each.
  const warnings: string[] = [];
  const fileCap = Math.min(config.sync.file_max_bytes, ...everyScoping.map((t) => t.limits.ruleFile?.bytes ?? Infinity));
  if (fileCap < config.sync.file_max_bytes) notes.push(`rule files capped at ${fileCap} bytes (${everyScoping.filter((t) => (t.limits.ruleFile?.bytes ?? Infinity) === fileCap).map((t) => t.agent).join(', ')}: ${everyScoping.find((t) => t.limits.ruleFile?.bytes === fileCap)?.limits.ruleFile?.text})`);
  // Each rule set is compiled over its package's own nodes and edges (a set never spans
  // packages), so graph-wide work (scopes, heading paths) is done per package, not per set × graph.
  const subgraphs = packageGraphs(graph);
  const rootTitles = rootTitlesOf(graph);
  for (const set of ruleSetsOf(graph, pinned, scopes)) {
    const patterns = set.patterns.filter(usablePattern);
    if (patterns.length < set.patterns.length) notes.push(`${set.package}: ${set.patterns.length - patterns.length} scope pattern(s) with control or invisible characters, a backtick or a secret (or that the bounded glob matcher refuses, or that matches no file) not written to rule files`);
    if (patterns.length === 0) continue;
    // The source path is package text written outside any pack: its secrets redacted, as headers' are.
    const source = set.sources[0];
    const title = `${set.package}: ${source !== undefined ? capText(surelyClean(source) ? source : redactSecrets(source).text, MAX_TITLE_SOURCE) : 'scoped rules'}`;
    const description = descriptionOf(subgraphs.get(set.package) as MergedGraph, set) ?? headingDescriptionOf(rootTitles, set);
    const members = new Set(set.nodes);
    const files = new Map<string, string>();
    const refusals: string[] = [];
    for (const t of scoping) {
      const path = ruleFilePath(t, set);
      const { usable, refused } = patternsFor(t, patterns);
      for (const r of refused) refusals.push(`${set.package}: scope pattern ${JSON.stringify(r.pattern)} left out of ${t.agent}'s rule file ${path}: ${r.why}${usable.length === 0 ? ` (no other pattern is left, so no ${t.agent} rule file is written for it)` : ''}`);
      if (usable.length > 0) files.set(t.id, path);
    }
    let overhead = blockOverhead() + 1;
    for (const t of everyScoping) {
      const { usable } = patternsFor(t, patterns);
      if (usable.length > 0) overhead = Math.max(overhead, bytes((t.scoped as NonNullable<AgentTarget['scoped']>).frontmatter(usable, title, description)) + blockOverhead() + 1);
    }
    const what = `path-scoped rules ${patterns.join(', ')} (${title})`;
    const pack = ruleSetWithin(what, fileCap, overhead, {
      ...base,
      graph: subgraphs.get(set.package) as MergedGraph,
      // Pinned nodes are in the always-on block, never in a rule set; pins of other packages
      // name nothing in this package's graph.
      policy: { ...config.pack, pins: [] },
      include: (n) => members.has(n.id),
      title: `Rules for ${codeList(patterns)} (ctxpkg)`,
      // The title states the patterns (the frontmatter holds them for the agent): no
      // `applies to:` line repeats them.
      statedScope: patterns,
      style: 'agent',
    });
    if (pack instanceof CtxpkgError) {
      // Its nodes count as on demand in the sync receipt (they are in no tier's receipt).
      onDemandSets.push({ set, patterns, title });
      listed.push({ patterns, onDemand: true });
      warnings.push(`${pack.message}; its rules are delivered on demand instead (${whereToRead({ patterns })}), no rule file is written${pack.hint !== undefined ? `; ${pack.hint}` : ''}`);
      continue;
    }
    if (pack.receipt.counts.delivered === 0) continue;
    warnings.push(...refusals);
    listed.push({ patterns });
    ruleSets.push({ set, patterns, title, ...(description !== undefined ? { description } : {}), body: pack.text, receipt: pack.receipt, files });
  }

  // Always-on tier: pinned + unscoped nodes, within every target's cap.
  const capped = every.filter((t) => t.limits.alwaysOn.bytes !== undefined);
  const cap = Math.min(config.sync.max_bytes, ...capped.map((t) => t.limits.alwaysOn.bytes as number));
  if (cap < config.sync.max_bytes) {
    const t = capped.find((x) => x.limits.alwaysOn.bytes === cap) as AgentTarget;
    notes.push(`the always-on block is capped at ${cap} bytes, the smallest cap of the agents it is written for (${t.agent}: ${t.limits.alwaysOn.text})`);
  }
  let overhead = blockOverhead() + 1;
  for (const t of every) if (t.alwaysOn.kind === 'file') overhead = Math.max(overhead, bytes(t.alwaysOn.frontmatter) + blockOverhead() + 1);
  const alwaysOn = compileWithin('the always-on block (AGENTS.md and the other agents\' always-loaded files)', 'max_bytes', cap, overhead, {
    ...base,
    include: alwaysOnFilter(pinned, scopes),
    title: 'Installed context (ctxpkg)',
    notes: ruleSetLines(listed, cap),
    style: 'agent',
  });
  return { alwaysOn: { body: alwaysOn.text, receipt: alwaysOn.receipt }, ruleSets, onDemandSets, notes, warnings: [...broken.map((b) => b.message), ...warnings] };
}

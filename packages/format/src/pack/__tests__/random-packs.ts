/**
 * Deterministic random pack inputs for `compile.equivalence.test.ts`: merged graphs with
 * nested heading sections (and dangling or doubled `contains` edges), scopes, list nodes larger
 * than an eighth of the budget, secrets, imperative and security words, CRLF and non-ASCII text,
 * decay, supersession, conflicts and `followed_by` chains — with budgets and options (format,
 * pins, trust, focus, package filter, pinned-only, stated scope, priorities, disputed/stale
 * policies) drawn from one seed. The same seed always gives the same cases (mulberry32), so the
 * outputs of one compiler can be recorded and compared with another's.
 */
import { createHash } from 'node:crypto';
import type { MergedEdge, MergedGraph, MergedNode } from '../../graph-types.js';
import type { PackInput } from '../compile.js';
import { NOW } from './graph.js';
import { mulberry32 } from '../../../../../test/support/rng.js';

/** Deterministic PRNG (mulberry32, test/support/rng.ts): uniform in [0, 1). */
const rng = mulberry32;

const WORDS = (
  'use prefer avoid cache database index query token session user config deploy build test lint error retry ' +
  'queue worker invoice ledger service client route handler auth role region storage upload parser schema ' +
  'hash sign verify release branch commit merge flag metric trace log alert rollback memory pool'
).split(' ');
const STRONG = ['never', 'Always', 'must', 'do not', "don't", 'NEVER', 'secrets', 'credential', 'API key', 'password', 'sanitize', 'xss', 'injection', 'cve-2', 'security'];
const SECRETS = ['AKIAIOSFODNN7EXAMPLQ', 'password = "hunter2Xy9Qz!"', 'ghp_' + 'aB3'.repeat(12), 'token: "Zq8vX2mP9kL4nR7tW1yB"', 'aZ9bY8cX7dW6eV5fU4gT3hS2iR1jQ0kP'];
const TYPES = ['gotcha', 'convention', 'procedure', 'fact', 'fact', 'decision', 'pattern', 'rule', 'warning', 'code_fn', 'insight', 'session', 'odd'];
const PKGS = ['@a/one', '@b/two', '@c/three', '@a/one-x'];

/** One generated compilation: a graph and the other inputs of `compilePack`. */
export interface RandomCase {
  name: string;
  input: PackInput;
}

/** `count` cases from `seed` (see module docstring). */
export function randomCases(seed: number, count: number): RandomCase[] {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)] as T;
  const chance = (p: number): boolean => r() < p;
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const out: RandomCase[] = [];
  for (let c = 0; c < count; c++) {
    const nodes: MergedNode[] = [];
    const edges: MergedEdge[] = [];
    const pkgCount = int(1, PKGS.length);
    const pkgs = PKGS.slice(0, pkgCount);
    const text = (): string => {
      const words = Array.from({ length: int(2, 40) }, () => (chance(0.04) ? pick(STRONG) : pick(WORDS)));
      let s = words.join(' ');
      if (chance(0.06)) s += ' ' + pick(SECRETS);
      if (chance(0.05)) s += '\r\nsecond line é € 😀';
      if (chance(0.04)) s = '- ' + s;
      return s;
    };
    const listText = (): string => {
      const items = Array.from({ length: int(2, 14) }, () => `- ${text().replace(/\r?\n/g, ' ')}`);
      return `Rules for this part:\n${items.join('\n')}`;
    };
    for (const pkg of pkgs) {
      const version = chance(0.8) ? '1.0.0' : '2.1.0';
      const files = ['AGENTS.md', 'docs/guide.md', 'src/x.md'].slice(0, int(1, 3));
      for (const file of files) {
        // Sections: a root per file, and nested headings below it.
        const sections: string[] = [];
        const rootLocal = `${file}:`;
        if (chance(0.85)) {
          nodes.push({ id: `${pkg}#${rootLocal}`, type: 'section', content: chance(0.7) ? `Guide ${pick(WORDS)}` : '', activation: 1, package: pkg, version, local_id: rootLocal, file_path: file, ...(chance(0.8) ? { line_start: 1, line_end: 1 } : {}) });
          sections.push(`${pkg}#${rootLocal}`);
        }
        const headingCount = int(0, 5);
        for (let h = 0; h < headingCount; h++) {
          const title = `${pick(WORDS)} ${pick(WORDS)}`;
          const parent = sections.length > 0 && chance(0.8) ? pick(sections) : undefined;
          const local = `${file}:${title.replace(/ /g, '-')}${h}`;
          const id = `${pkg}#${local}`;
          nodes.push({ id, type: 'section', content: chance(0.9) ? title : '', activation: 1, package: pkg, version, local_id: local, file_path: file, line_start: 10 * h + 2, line_end: 10 * h + 2 });
          if (parent) edges.push(edge(parent, id, pkg));
          sections.push(id);
        }
        const itemCount = int(0, 18);
        for (let i = 0; i < itemCount; i++) {
          const local = `${file}:n${i}~${createHash('sha256').update(`${c}${pkg}${file}${i}`).digest('hex').slice(0, 8)}`;
          const id = `${pkg}#${local}`;
          const big = chance(0.07);
          const n: MergedNode = {
            id,
            type: pick(TYPES),
            content: big ? listText() : text(),
            activation: Math.round(r() * 1000) / 1000,
            package: pkg,
            version,
            local_id: local,
            ...(chance(0.9) ? { file_path: file } : {}),
            ...(chance(0.85) ? { line_start: int(1, 60) } : {}),
            ...(chance(0.5) ? { category: pick(['agents-md', 'cursor-rules', 'password=x', 'AGENTS.md']) } : {}),
          };
          if (n.line_start !== undefined && chance(0.8)) n.line_end = n.line_start + int(0, 3);
          if (chance(0.05)) n.superseded_by = [`${pick(pkgs)}#other`];
          if (chance(0.1)) {
            n.created_at = pick(['2024-01-01T00:00:00Z', '2025-05-01T00:00:00Z', '2030-01-01T00:00:00Z']);
            n.decay_half_life_days = pick([1, 30, 365]);
          }
          if (chance(0.04)) n.disputed = true;
          nodes.push(n);
          if (sections.length > 0 && chance(0.85)) edges.push(edge(pick(sections), id, pkg));
          if (sections.length > 1 && chance(0.08)) edges.push(edge(pick(sections), id, pkg));
          if (chance(0.03)) edges.push(edge(`${pkg}#missing:${i}`, id, pkg));
          if (i > 0 && chance(0.08)) edges.push({ from: `${pkg}#${file}:n${i - 1}`, to: id, type: 'followed_by', weight: 1, packages: [pkg] });
        }
      }
      if (chance(0.3)) {
        const sid = `${pkg}#scope-${c}`;
        nodes.push({ id: sid, type: 'scope', content: pick(['src/**', 'docs/*.md', '**/*.ts']), activation: 1, package: pkg, version, local_id: `scope-${c}` });
        const target = nodes.filter((n) => n.package === pkg && n.type === 'section');
        if (target.length > 0) edges.push({ from: pick(target).id, to: sid, type: 'applies_to', weight: 1, packages: [pkg] });
      }
    }
    const conflicts: MergedGraph['conflicts'] = [];
    const items = nodes.filter((n) => n.type !== 'section' && n.type !== 'scope');
    if (items.length > 2 && chance(0.2)) conflicts.push({ from: (items[0] as MergedNode).id, to: (items[1] as MergedNode).id, package: (items[0] as MergedNode).package });
    const graph: MergedGraph = {
      format: 'ctxpkg-merged-v1',
      inputs: pkgs.map((p) => ({ package: p, version: nodes.find((n) => n.package === p)?.version ?? '1.0.0', content_hash: createHash('sha256').update(p).digest('hex') })),
      nodes: chance(0.8) ? nodes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) : nodes,
      edges,
      conflicts,
    };
    const format = chance(0.8) ? ('md' as const) : ('json' as const);
    const input: PackInput = { graph, maxBytes: pick([400, 900, 1500, 2500, 4000, 8000, 20000, 1 << 20]), now: NOW, format };
    const policy: NonNullable<PackInput['policy']> = {};
    if (items.length > 0 && chance(0.2)) policy.pins = [pick(items).id, ...(chance(0.3) ? [pick(pkgs)] : []), ...(chance(0.2) ? ['@a/one#AGENTS.md:'] : [])];
    if (chance(0.15)) policy.priorities = { [pick(pkgs)]: pick([1, 5, -2]) };
    if (chance(0.15)) policy.disputed = 'omit';
    if (chance(0.1)) policy.min_activation = 0.3;
    if (chance(0.1)) policy.section_weights = { pinned: 0, gotchas: 1, conventions: 5, procedures: 0, facts: 1 };
    if (Object.keys(policy).length > 0) input.policy = policy;
    if (chance(0.2)) input.trusted = new Set([pick(pkgs)]);
    if (chance(0.12)) input.focus = pick(['use cache', 'docs/**', 'Guide', 'never', 'token session', ...WORDS.slice(0, 5)]);
    if (chance(0.1)) input.packages = [pick(pkgs)];
    if (chance(0.05)) input.pinnedOnly = true;
    if (chance(0.1)) input.statedScope = ['src/**'];
    if (chance(0.1)) input.style = 'agent';
    if (chance(0.2)) input.receipt = true;
    out.push({ name: `seed ${seed} case ${c}`, input });
  }
  return out;
}

function edge(from: string, to: string, pkg: string): MergedEdge {
  return { from, to, type: 'contains', weight: 1, packages: [pkg] };
}

/**
 * "Did you mean …?" for a mistyped scope or package name (issue 13 item 3): close scopes among
 * those bound in ctxpkg.json and the user config, close package names among those the registry
 * lists to this caller (its catalog, spec/registry.md; private packages of other namespaces are
 * never listed, so nothing leaks). Closeness is cargo's rule for misspelled commands: an edit
 * distance (with adjacent transpositions) of at most max(length, 3) / 3.
 */
import { CtxpkgError, isCtxpkgError } from '@ctxpkg/format/errors';
import type { RegistryClient } from './client.js';

/** Longest text compared, in UTF-16 code units: names are short; anything longer is not a typo. */
const MAX_COMPARED = 128;

/**
 * Optimal string alignment distance between `a` and `b` (insertions, deletions, substitutions
 * and swaps of adjacent characters, each 1), over UTF-16 code units; O(|a|·|b|) time. Texts
 * longer than 128 code units get `Infinity`.
 */
export function editDistance(a: string, b: string): number {
  if (a.length > MAX_COMPARED || b.length > MAX_COMPARED) return Infinity;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The `candidates` close to `word` (distance ≥ 1 and ≤ `limit`, by default max(|word|, 3) / 3
 * rounded down), closest first, then in code-unit order; at most `max` of them.
 */
export function closest(word: string, candidates: Iterable<string>, max = 3, limit = Math.floor(Math.max(word.length, 3) / 3)): string[] {
  const scored: Array<[number, string]> = [];
  for (const c of new Set(candidates)) {
    const d = editDistance(word, c);
    if (d >= 1 && d <= limit) scored.push([d, c]);
  }
  scored.sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
  return scored.slice(0, max).map((x) => x[1]);
}

/** Split `@ns/name` (already validated by the caller) into scope and rest. */
function splitScoped(name: string): { scope: string; rest: string } | undefined {
  const slash = name.indexOf('/');
  return name.startsWith('@') && slash > 1 ? { scope: name.slice(0, slash), rest: name.slice(slash) } : undefined;
}

/**
 * Bound scopes (`bound`: scope → registry URL, from ctxpkg.json and the user config) close to the
 * scope of `name`, each with its registry.
 */
export function closeBoundScopes(name: string, bound: Readonly<Record<string, string>>): Array<{ scope: string; registry: string }> {
  const p = splitScoped(name);
  if (!p) return [];
  return closest(p.scope.slice(1), Object.keys(bound).map((k) => k.slice(1))).map((k) => ({ scope: `@${k}`, registry: bound[`@${k}`]! }));
}

/** "did you mean @acme/agents? (scope @acme is bound to URL)" for `name`, or undefined. */
export function scopeSuggestion(name: string, bound: Readonly<Record<string, string>>): string | undefined {
  const p = splitScoped(name);
  const close = closeBoundScopes(name, bound);
  if (!p || close.length === 0) return undefined;
  return `did you mean ${close.map((c) => `${c.scope}${p.rest}`).join(' or ')}? (${close.map((c) => `scope ${c.scope} is bound to ${c.registry}`).join('; ')})`;
}

async function catalogNames(client: RegistryClient, registry: string, after: string, limit: number, scope?: string): Promise<string[]> {
  try {
    const body = (await client.catalogPage(registry, after, limit, scope)) as { packages?: unknown } | undefined;
    const list = Array.isArray(body?.packages) ? body.packages : [];
    return list.map((p) => (typeof p === 'object' && p !== null ? (p as { name?: unknown }).name : undefined)).filter((n): n is string => typeof n === 'string');
  } catch {
    return [];
  }
}

/**
 * Names on `registry` close to `name` (`@ns/name`), from the registry's catalog: first the
 * packages of the same namespace (one page of 200), then, when none is close, the page of 500
 * that starts at the namespace's first letter (a mistyped scope). Never throws: on any failure
 * the answer is `[]`. At most two requests.
 */
export async function closeRegistryNames(client: RegistryClient, registry: string, name: string): Promise<string[]> {
  const p = splitScoped(name);
  if (!p) return [];
  // the allowed distance is measured on the unscoped name, so a long scope does not widen it
  const limit = Math.floor(Math.max(p.rest.length - 1, 3) / 3);
  const own = (await catalogNames(client, registry, `${p.scope}/`, 200, p.scope)).filter((n) => n.startsWith(`${p.scope}/`));
  const near = closest(name, own, 3, limit);
  if (near.length > 0) return near;
  return closest(name, await catalogNames(client, registry, p.scope.slice(0, 2), 500), 3, limit);
}

/**
 * `err` when it is not `E_NOT_FOUND`; otherwise the same error with "did you mean …?" appended
 * to its message when the registry lists close names or a close scope is bound in `bound`
 * (`details.suggestions`). Hint, code and other details are kept.
 */
export async function withNameSuggestions(err: unknown, client: RegistryClient, registry: string, name: string, bound: Readonly<Record<string, string>>): Promise<unknown> {
  if (!isCtxpkgError(err) || err.code !== 'E_NOT_FOUND') return err;
  const names = await closeRegistryNames(client, registry, name);
  const scoped = closeBoundScopes(name, bound).map((c) => `${c.scope}${splitScoped(name)!.rest}`);
  const all = [...new Set([...names, ...scoped])].slice(0, 3);
  if (all.length === 0) return err;
  return new CtxpkgError(err.code, `${err.message}; did you mean ${all.join(' or ')}?`, { hint: err.hint, details: { ...err.details, suggestions: all }, cause: err });
}

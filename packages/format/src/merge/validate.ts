/**
 * Input validation and set semantics of the merge (spec/merge.md §1.1, §1.2): everything is
 * checked before anything is merged; identical inputs collapse; the result is sorted by package.
 */
import { CtxpkgError } from '../errors.js';
import type { ContextGraph, MergeInput } from '../graph-types.js';
import { isLowerHex } from '../hex.js';
import { validatePackageName } from '../names.js';

function structure(path: string, why: string): CtxpkgError {
  return new CtxpkgError('E_STRUCTURE', `${path}: ${why}`, { details: { path } });
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string; `key` strings (ids, references, types) must also be free of U+0000. */
function str(v: unknown, path: string, key = true): void {
  if (typeof v !== 'string') throw structure(path, 'must be a string');
  if (key && v.includes('\u0000')) throw structure(path, 'must not contain U+0000');
}

function optFinite(v: unknown, path: string): void {
  if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isFinite(v))) throw structure(path, 'must be a finite number');
}

function optCount(v: unknown, path: string): void {
  if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)) throw structure(path, 'must be an integer ≥ 0');
}

function checkGraph(g: unknown, path: string): void {
  if (!isObj(g)) throw structure(path, 'must be an object');
  if (!Array.isArray(g.nodes)) throw structure(`${path}.nodes`, 'must be an array');
  if (!Array.isArray(g.edges)) throw structure(`${path}.edges`, 'must be an array');
  const nodes = g.nodes as unknown[];
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    const p = `${path}.nodes[${i}]`;
    if (!isObj(n)) throw structure(p, 'must be an object');
    str(n.id, `${p}.id`);
    if (n.id === '') throw structure(`${p}.id`, 'must not be empty');
    str(n.type, `${p}.type`);
    str(n.content, `${p}.content`, false);
    optFinite(n.activation, `${p}.activation`);
    optFinite(n.confidence, `${p}.confidence`);
    optCount(n.decay_half_life_days, `${p}.decay_half_life_days`);
    if (n.supersedes !== undefined && n.supersedes !== null) str(n.supersedes, `${p}.supersedes`);
  }
  const edges = g.edges as unknown[];
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i];
    const p = `${path}.edges[${i}]`;
    if (!isObj(e)) throw structure(p, 'must be an object');
    str(e.from, `${p}.from`);
    str(e.to, `${p}.to`);
    str(e.type, `${p}.type`);
    optFinite(e.weight, `${p}.weight`);
    optCount(e.coactivations, `${p}.coactivations`);
    if (e.metadata !== undefined && e.metadata !== null) str(e.metadata, `${p}.metadata`, false);
  }
}

/** A validated input. */
export interface Input {
  package: string;
  version: string;
  content_hash: string;
  graph: ContextGraph;
}

/**
 * Validate all inputs, collapse identical ones, refuse two versions of one package, and return
 * them sorted by package name. Throws `E_INVALID_NAME`, `E_STRUCTURE` or `E_CONFLICT`.
 */
export function normalizeInputs(inputs: readonly MergeInput[]): Input[] {
  if (!Array.isArray(inputs)) throw structure('inputs', 'must be an array');
  const byPackage = new Map<string, Input>();
  inputs.forEach((input, i) => {
    const p = `inputs[${i}]`;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw structure(p, 'must be an object');
    str(input.package, `${p}.package`);
    validatePackageName(input.package, { allowUnscoped: true });
    str(input.version, `${p}.version`);
    if (input.version === '') throw structure(`${p}.version`, 'must not be empty');
    if (!isLowerHex(input.content_hash, 64)) throw structure(`${p}.content_hash`, 'must be 64 lowercase hex characters');
    checkGraph(input.graph, `${p}.graph`);
    const prev = byPackage.get(input.package);
    if (!prev) {
      byPackage.set(input.package, { package: input.package, version: input.version, content_hash: input.content_hash, graph: input.graph });
      return;
    }
    if (prev.version !== input.version || prev.content_hash !== input.content_hash) {
      throw new CtxpkgError(
        'E_CONFLICT',
        `two inputs for ${input.package} (${prev.version} ${prev.content_hash.slice(0, 12)}… and ${input.version} ${input.content_hash.slice(0, 12)}…): a project installs one version per package`,
        { details: { package: input.package } },
      );
    }
    if (prev.graph !== input.graph && JSON.stringify(prev.graph) !== JSON.stringify(input.graph)) {
      throw new CtxpkgError('E_CONFLICT', `two inputs for ${input.package}@${input.version} have the same content hash but different graphs`, {
        details: { package: input.package },
      });
    }
  });
  return [...byPackage.values()].sort((a, b) => (a.package < b.package ? -1 : a.package > b.package ? 1 : 0));
}

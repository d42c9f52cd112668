/**
 * `ctxpkg create` core: sources → importers → graph → secret screen → signed package bytes
 * (ARCHITECTURE.md "Data that flows through"). Validates everything before writing anything.
 *
 * Secret screening (issue 5 item 3): every source file is scanned with `scanSecrets` before the
 * graph is built; any finding is `E_SECRET` listing `file:line kind` (never the value) unless
 * `redact` is set, in which case each node's content is passed through `redactSecrets`
 * (`[REDACTED:kind]`). The final node contents are scanned again; nothing that scans as a
 * secret is ever written. Provenance hashes stay those of the original source lines.
 */
import {
  CtxpkgError, buildPackage, parsePackageName, parseRange, redactSecrets, scanSecrets, validateVersion,
  type ContextGraph, type SecretFinding,
} from '@ctxpkg/format';
import { collectSources, type SkippedSource, type UnresolvedImport } from './importers/collect.js';
import { buildGraph, type CrossPackageRef } from './importers/index.js';
import { TOOL_NAME, CLI_VERSION } from './version.js';

export interface CreateInput {
  name: string;
  version: string;
  description?: string;
  author?: string;
  tags?: string[];
  /** `@ns/name@range` dependency declarations. */
  deps?: string[];
  private?: boolean;
  /** Source root (provenance paths are relative to it). */
  root: string;
  cwd: string;
  from: string[];
  redact?: boolean;
  created_at: Date;
}

export interface CreatedGraph {
  graph: ContextGraph;
  files: string[];
  warnings: string[];
  redacted: Array<{ file: string; line: number; kind: string }>;
  /** ctxpkg's own output left out of the package (managed blocks, generated files, `.ctxpkg/`). */
  skipped: SkippedSource[];
  /** CLAUDE.md `@imports` that were not followed (their text stays in the nodes). */
  unresolved: UnresolvedImport[];
}

/**
 * The description written when `--description` is not given: the imported files by name
 * (`Context from AGENTS.md and CLAUDE.md`, `Context from AGENTS.md, CLAUDE.md and 3 more files`),
 * taken from the graph's `file_path`s in sorted order.
 */
export function defaultDescription(graph: ContextGraph): string {
  const files = [...new Set(graph.nodes.map((n) => n.file_path).filter((p): p is string => typeof p === 'string'))].sort();
  if (files.length === 0) return 'Context package';
  if (files.length === 1) return `Context from ${files[0]}`;
  if (files.length <= 3) return `Context from ${files.slice(0, -1).join(', ')} and ${files[files.length - 1]}`;
  return `Context from ${files.slice(0, 2).join(', ')} and ${files.length - 2} more files`;
}

/** Default output file name: `<scope>-<name>-<version>.ctxpkg` (fixes FORMAT-FACTS §12.4). */
export function defaultOutputName(name: string, version: string): string {
  const p = parsePackageName(name);
  return `${p.namespace}-${p.name}-${version}.ctxpkg`;
}

function parseDep(arg: string): { name: string; version_req: string; optional: boolean } {
  const at = arg.indexOf('@', 1);
  const name = at > 0 ? arg.slice(0, at) : arg;
  const range = at > 0 ? arg.slice(at + 1) : '*';
  parsePackageName(name);
  parseRange(range, { mode: 'write' });
  return { name, version_req: range, optional: false };
}

/**
 * One warning per cross-package reference (`@ns/name#id` in a JSON source) whose package is not
 * among `deps` (`@ns/name@range`). Such a reference is allowed — a package may contradict or
 * supersede a rival it must not pull into every project — but it takes effect only where the
 * named package is installed too; elsewhere the merge drops it and reports it (spec/merge.md §2,
 * `edges_dropped`/`supersedes_dropped`). Sorted by file, line, field.
 */
export function undeclaredRefWarnings(refs: CrossPackageRef[], deps: string[]): string[] {
  const declared = new Set(deps.map((d) => parseDep(d).name));
  return refs
    .filter((r) => !declared.has(r.package))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.field < b.field ? -1 : a.field > b.field ? 1 : 0)))
    .map((r) =>
      `${r.file}:${r.line}: ${r.field} names ${r.ref}, but ${r.package} is not a declared dependency (--dep ${r.package}@<range>); ` +
      `the reference takes effect only in projects that install ${r.package} too, and is dropped elsewhere (spec/merge.md §2)`,
    );
}

/** Import and screen the sources. Throws `E_SECRET`, `E_SOURCE`, `E_INVALID_NAME`, `E_INVALID_VERSION`. */
export function importForCreate(input: CreateInput): CreatedGraph {
  parsePackageName(input.name);
  validateVersion(input.version);
  for (const d of input.deps ?? []) parseDep(d);
  const collected = collectSources(input.root, input.cwd, input.from);
  const findings: Array<{ file: string; f: SecretFinding }> = [];
  for (const file of collected.files) for (const f of scanSecrets(file.text)) findings.push({ file: file.path, f });
  if (findings.length > 0 && !input.redact) {
    const list = findings.slice(0, 20).map((x) => `${x.file}:${x.f.line} ${x.f.kind}`);
    throw new CtxpkgError('E_SECRET', `secrets found in the sources (${findings.length}): ${list.join(', ')}${findings.length > 20 ? ', …' : ''}`, {
      hint: 'remove them from the sources, or pass --redact to replace them with [REDACTED:kind]',
      details: { findings: findings.map((x) => ({ file: x.file, line: x.f.line, kind: x.f.kind })) },
    });
  }
  const crossRefs: CrossPackageRef[] = [];
  const graph = buildGraph(collected.files, { package: input.name, crossRefs });
  const warnings = [...collected.warnings, ...undeclaredRefWarnings(crossRefs, input.deps ?? [])];
  if (input.redact) for (const n of graph.nodes) n.content = redactSecrets(n.content).text;
  for (const n of graph.nodes) {
    const left = scanSecrets(n.content);
    if (left.length > 0) {
      throw new CtxpkgError('E_SECRET', `node ${n.id} still contains a secret (${left[0].kind}) after screening`, {
        hint: 'remove the secret from the source file',
      });
    }
    // Ids carry heading slugs (importers/ids.ts); the registry screens them like content.
    const inId = scanSecrets(n.id);
    if (inId.length > 0) {
      throw new CtxpkgError('E_SECRET', `the id of the node at ${n.file_path ?? '?'}:${n.line_start ?? '?'} looks like a secret (${inId[0].kind}); ids are built from headings`, {
        hint: 'remove the secret from the heading (or, in a JSON source, from the id)',
      });
    }
  }
  return {
    graph,
    files: collected.files.map((f) => f.path),
    warnings,
    redacted: findings.map((x) => ({ file: x.file, line: x.f.line, kind: x.f.kind })),
    skipped: collected.skipped,
    unresolved: collected.unresolved,
  };
}

/** Build the signed package bytes for an imported graph. Throws the writer's codes. */
export function buildCreated(input: CreateInput, graph: ContextGraph, seed: Uint8Array): Uint8Array {
  const description = input.description ?? defaultDescription(graph);
  const built = buildPackage(
    {
      manifest: {
        name: input.name,
        version: input.version,
        description,
        author: input.author ?? null,
        created_at: input.created_at,
        dependencies: (input.deps ?? []).map(parseDep),
        tags: [...(input.tags ?? [])].sort(),
        visibility: input.private ? 'private' : null,
        provenance: { tool: TOOL_NAME, tool_version: CLI_VERSION },
      },
      content: { context_graph: graph },
    },
    { seed },
  );
  return built.bytes;
}

/**
 * A registry filled for the page tests and the page bench (issue 14): packages made from the real
 * instruction files in ../shared/corpus with the CLI's own `ctxpkg create`, published over HTTP,
 * plus what the pages must handle — a package with three versions (one yanked) whose text
 * changed (one node edited, one added, one removed), a private package, a 1,000-node package, a package that depends on another, and
 * hostile packages (script tags, event attributes, `javascript:` links and SVG payloads in node
 * text, ids, types, file paths, descriptions, authors and tags).
 *
 * The corpus is only read: edited copies for later versions are written to a temp directory.
 */
import { publicUnlessDeclared } from '../../packages/registry/src/__tests__/support.js';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { buildPackage, type ContextGraph } from '@ctxpkg/format';
import { createNamespace, createToken, type RegistryStore } from '@ctxpkg/registry';
import { cli } from './cli.js';
import { SHARED_DIR } from './shared.js';

export const CORPUS = join(SHARED_DIR, 'corpus');

/** Every corpus file (relative to the corpus root), sorted, SOURCES.md left out. */
export function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d).sort()) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f !== 'SOURCES.md') out.push(relative(CORPUS, p));
    }
  };
  walk(CORPUS);
  return out;
}

/** A package name from a corpus path: `nemo-agent-toolkit/.cursor/rules/general.mdc` → `nemo-agent-toolkit-cursor-rules-general-mdc`. */
export function slug(path: string): string {
  return path.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64).replace(/-+$/, '');
}

/** Script payloads that must never run or become markup (each would call `alert` or set `window.__xss`). */
export const XSS = [
  '<script>window.__xss=1;alert(1)</script>',
  '<img src=x onerror="window.__xss=2;alert(2)">',
  '"><svg onload="window.__xss=3;alert(3)"></svg>',
  "'><iframe src=javascript:alert(4)></iframe>",
  '<a href="javascript:alert(5)">click</a>',
  '</textarea></title></style><script>alert(6)</script>',
  '<svg><script>alert(7)</script></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(8)>',
] as const;

const EDITS: Array<[string, string]> = [
  ['* Prefer TypeScript (`.tsx`/`.ts`) for new components and utilities.', '* Prefer TypeScript (`.tsx`/`.ts`) for all new components, hooks and utilities.'],
  ['Following these practices ensures that the agent-assisted development workflow stays\nfast and dependable.  When in doubt, restart the dev server rather than running the\nproduction build.\n', ''],
  ['## 4. Useful Commands Recap', '* Run `npm run lint` before every commit; CI rejects lint errors.\n\n## 4. Useful Commands Recap'],
];

export interface FilledRegistry {
  tokens: { corpusPublish: string; acmeRead: string; acmePublish: string; otherRead: string; evilPublish: string };
  /** `@corpus/<slug>` for each corpus file, in corpusFiles() order. */
  corpus: Array<{ name: string; file: string }>;
  /** Every corpus file in one package (about 430 nodes: the clustered graph). */
  all: string;
  /** Three versions: 0.9.0 (yanked), 1.0.0, 1.1.0 (text changed, a node added, one removed). */
  changed: string;
  /** A private package of namespace `acme`. */
  secret: string;
  /** A 1,000-node package (40 sections × 24 items). */
  big: string;
  /** Hostile graph built with the format's writer, and hostile Markdown through `ctxpkg create`. */
  hostile: string;
  hostileMd: string;
  /** Depends on `changed`. */
  dependent: string;
  workDir: string;
}

async function put(app: { request: (url: string, init: RequestInit) => Response | Promise<Response> }, token: string, full: string, version: string, bytes: Uint8Array): Promise<void> {
  const [ns, name] = full.slice(1).split('/');
  const res = await app.request(`http://registry.test/v1/packages/${ns}/${name}/${version}`, {
    method: 'PUT',
    headers: { ...(await publicUnlessDeclared(bytes)), authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  if (res.status !== 201) throw new Error(`publish of ${full}@${version} failed: ${res.status} ${await res.text()}`);
}

const noFetch = (async () => {
  throw new TypeError('no network in this fixture');
}) as typeof fetch;

/**
 * Fill `store` (served by `app`) with the page-test packages. Creates the namespaces `corpus`,
 * `acme`, `other` and `evil`; returns tokens and package names. With `small` (bench smoke runs),
 * the one-package-per-corpus-file set and the whole-corpus package are left out (`corpus` is
 * empty and `all` names the 1,000-node package). Throws when a step fails.
 */
export async function fillPagesRegistry(
  store: RegistryStore,
  app: { request: (url: string, init: RequestInit) => Response | Promise<Response> },
  opts: { small?: boolean } = {},
): Promise<FilledRegistry> {
  const workDir = mkdtempSync(join(tmpdir(), 'ctxpkg-pages-'));
  const home = join(workDir, 'home');
  const keyFile = join(workDir, 'signing.key');
  writeFileSync(keyFile, `${'2a'.repeat(32)}\n`);
  for (const ns of ['corpus', 'acme', 'other', 'evil']) await createNamespace({ store }, ns);
  const tok = async (namespace: string, scope: 'publish' | 'read') => (await createToken({ store }, { namespace, scope })).token;
  const tokens = {
    corpusPublish: await tok('corpus', 'publish'),
    acmeRead: await tok('acme', 'read'),
    acmePublish: await tok('acme', 'publish'),
    otherRead: await tok('other', 'read'),
    evilPublish: await tok('evil', 'publish'),
  };
  let n = 0;
  /** `ctxpkg create` in `cwd` → bytes. */
  const create = async (cwd: string, args: string[]): Promise<Uint8Array> => {
    const out = join(workDir, `p${++n}.ctxpkg`);
    const r = await cli(['create', ...args, '--key', keyFile, '--out', out], { cwd, fetch: noFetch, home, env: { CTXPKG_HOME: home } });
    if (r.code !== 0) throw new Error(`ctxpkg create ${args.join(' ')} failed: ${r.stderr}${r.stdout}`);
    return new Uint8Array(readFileSync(out));
  };

  const files = corpusFiles();
  const corpus: FilledRegistry['corpus'] = [];
  let all = '@corpus/big-handbook';
  if (!opts.small) {
    for (const file of files) {
      const name = `@corpus/${slug(file)}`;
      await put(app, tokens.corpusPublish, name, '1.0.0', await create(CORPUS, ['--name', name, '--version', '1.0.0', '--from', file, '--tag', 'corpus']));
      corpus.push({ name, file });
    }
    all = '@corpus/all-instructions';
    await put(app, tokens.corpusPublish, all, '1.0.0', await create(CORPUS, ['--name', all, '--from', ...files, '--description', 'Every instruction file of the corpus in one package']));
  }

  // Three versions of one file's package, the last with edited text.
  const changed = '@corpus/nextjs-guidelines';
  const src = 'agentsmd/AGENTS.md';
  const original = readFileSync(join(CORPUS, src), 'utf8');
  const v1dir = join(workDir, 'v1');
  mkdirSync(join(v1dir, dirname(src)), { recursive: true });
  let edited = original;
  for (const [from, to] of EDITS) {
    if (!edited.includes(from)) throw new Error(`the corpus file ${src} changed: cannot apply the edit ${JSON.stringify(from)}`);
    edited = edited.replace(from, to);
  }
  writeFileSync(join(v1dir, src), edited);
  const desc = ['--description', 'Next.js agent guidelines: dev server, dependencies, conventions'];
  await put(app, tokens.corpusPublish, changed, '0.9.0', await create(CORPUS, ['--name', changed, '--version', '0.9.0', '--from', src, ...desc]));
  const yank = await app.request(`http://registry.test/v1/packages/corpus/nextjs-guidelines/0.9.0`, { method: 'DELETE', headers: { authorization: `Bearer ${tokens.corpusPublish}` } });
  if (yank.status !== 200) throw new Error(`yank failed: ${yank.status}`);
  await put(app, tokens.corpusPublish, changed, '1.0.0', await create(CORPUS, ['--name', changed, '--version', '1.0.0', '--from', src, ...desc]));
  await put(app, tokens.corpusPublish, changed, '1.1.0', await create(v1dir, ['--name', changed, '--version', '1.1.0', '--from', src, ...desc]));

  const dependent = '@corpus/team-bundle';
  await put(app, tokens.corpusPublish, dependent, '2.0.0', await create(CORPUS, ['--name', dependent, '--version', '2.0.0', '--from', files[0], '--dep', `${changed}@^1.0`]));

  const secret = '@acme/secret-rules';
  await put(app, tokens.acmePublish, secret, '1.0.0', await create(CORPUS, ['--name', secret, '--from', src, '--private', '--description', 'ACME internal rules (private)']));

  // 1,000 nodes: a root section, 40 sections of 24 bullets each (and one trailing paragraph).
  const bigDir = join(workDir, 'big');
  mkdirSync(bigDir, { recursive: true });
  const kinds = ['Never', 'Always', 'Run', 'The'];
  const lines = ['# Big handbook', ''];
  for (let s = 0; s < 40; s++) {
    lines.push(`## Area ${s + 1}: ${['builds', 'tests', 'releases', 'docs', 'security'][s % 5]} part ${s + 1}`, '');
    for (let b = 0; b < 24; b++) lines.push(`- ${kinds[b % 4]} rule ${s + 1}.${b + 1}: keep ${['caches', 'fixtures', 'tokens', 'logs'][b % 4]} of area ${s + 1} in order (see area ${((s + 7) % 40) + 1}).`);
    lines.push('');
  }
  lines.push('That is all.');
  writeFileSync(join(bigDir, 'HANDBOOK.md'), `${lines.join('\n')}\n`);
  const big = '@corpus/big-handbook';
  await put(app, tokens.corpusPublish, big, '1.0.0', await create(bigDir, ['--name', big, '--from', 'HANDBOOK.md', '--description', 'A 1,000-node handbook']));

  // Hostile content through the format's writer (types, ids, paths, categories are free text)…
  const hostile = '@evil/xss-graph';
  const graph: ContextGraph = {
    format: 'ctxpkg-graph-v2',
    nodes: [
      { id: 'root', type: 'section', content: `Root ${XSS[0]}`, activation: 1.0, file_path: `x${XSS[2]}.md`, line_start: 1, line_end: 20 },
      ...XSS.map((x, i) => ({
        id: `n${i}${i % 2 === 0 ? x : ''}`,
        type: i % 3 === 0 ? x : 'gotcha',
        content: `payload ${i}: ${x} [link](javascript:alert(${i}))`,
        activation: 1.0,
        category: x,
        file_path: `x${XSS[2]}.md`,
        line_start: i + 2,
        line_end: i + 2,
      })),
    ],
    edges: XSS.map((x, i) => ({ from: 'root', to: `n${i}${i % 2 === 0 ? x : ''}`, type: i === 1 ? x : 'contains', weight: 1.0, ...(i === 2 ? { metadata: x } : {}) })),
  };
  const hostileBytes = (version: string, extra: string) =>
    buildPackage(
      {
        manifest: {
          name: hostile,
          version,
          description: `Hostile ${XSS[1]} ${extra}`,
          author: XSS[3],
          tags: ['x', 'javascript:alert(1)'],
          created_at: '2026-01-02T03:04:05Z',
          dependencies: [{ name: '@evil/dep', version_req: '^1', optional: false }],
        },
        content: { context_graph: { ...graph, nodes: graph.nodes.map((nd) => (nd.id === 'n1' ? { ...nd, content: `${nd.content} ${extra}` } : nd)) } },
      },
      { seed: new Uint8Array(32).fill(0x2a) },
    ).bytes;
  await put(app, tokens.evilPublish, hostile, '1.0.0', hostileBytes('1.0.0', ''));
  await put(app, tokens.evilPublish, hostile, '1.1.0', hostileBytes('1.1.0', XSS[6]));

  // …and hostile Markdown through `ctxpkg create` (raw HTML, javascript: links, SVG).
  const mdDir = join(workDir, 'evil');
  mkdirSync(mdDir, { recursive: true });
  const md = [
    `# Evil ${XSS[0]}`,
    '',
    `## Heading ${XSS[2]}`,
    '',
    ...XSS.map((x) => `- ${x}`),
    '',
    '[click me](javascript:alert(9)) and <a href="javascript:alert(10)">this</a>',
    '',
    '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(11)"><script>alert(12)</script></svg>',
    '',
  ].join('\n');
  writeFileSync(join(mdDir, 'AGENTS.md'), md);
  const hostileMd = '@evil/xss-markdown';
  await put(app, tokens.evilPublish, hostileMd, '1.0.0', await create(mdDir, ['--name', hostileMd, '--from', 'AGENTS.md', '--description', `Evil ${XSS[4]}`, '--tag', 'evil']));

  return { tokens, corpus, all, changed, secret, big, hostile, hostileMd, dependent, workDir };
}

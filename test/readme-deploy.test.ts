/**
 * The README's "Operating a registry" section is what a new operator follows to the letter
 * (issue 12 "Done when"): every `ctxpkg` command it shows — in a code block or inline — must use
 * flags the command really has, its `serve` config file must be one `serve` reads, and the
 * deployment recipes (systemd unit, nginx site, container) must not carry the mistakes a first
 * deployment trips over. The flags come from each command's own `--help` (runCli in process), the
 * config keys from `readServeConfigFile`, the default sizes and port from `serve --help`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliDeps } from 'ctxpkg';
import { readServeConfigFile } from '../packages/cli/src/commands/registry.js';

const ROOT = join(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text of `## Operating a registry`, up to the next `## ` heading. */
function section(): string {
  const start = README.indexOf('\n## Operating a registry\n');
  expect(start, 'README has an "## Operating a registry" section').toBeGreaterThan(0);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

/** The fenced code blocks of the section (also ones indented inside a list), by language. */
function blocks(lang: string): string[] {
  const out: string[] = [];
  const lines = section().split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const indent = (open[1] as string).length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j] as string); j++) body.push((lines[j] as string).slice(indent));
    if (open[2] === lang) out.push(body.join('\n'));
    i = j;
  }
  return out;
}

/** Split a command line into words: whitespace separates, double and single quotes group. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? (m[3] as string));
  return out;
}

/**
 * Every `ctxpkg …` invocation of the section: from shell blocks (continuations joined, comments
 * dropped, cut at `|`, `&&`, `;` and a trailing `&`) and from inline code spans.
 */
function invocations(): string[] {
  const out: string[] = [];
  const cut = (text: string): void => {
    for (const piece of text.split(/\s(?:\||&&|;|&)(?:\s|$)/)) {
      const m = /^(?:[A-Z_]+=\S*\s+)*(ctxpkg\s.*)$/.exec(piece.trim());
      if (m) out.push((m[1] as string).replace(/\s+&$/, ''));
    }
  };
  for (const block of blocks('sh')) {
    for (const line of block.replace(/\\\n\s*/g, ' ').split('\n')) cut(line.replace(/(^|\s)#.*$/, ''));
  }
  const prose = section().replace(/```[\s\S]*?```/g, '');
  for (const m of prose.matchAll(/`(ctxpkg [^`]+)`/g)) cut(m[1] as string);
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'ctxpkg-readme-deploy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function help(path: string[]): Promise<string> {
  let out = '';
  const stdin = new PassThrough();
  stdin.end('');
  const deps: CliDeps = {
    fetch: (() => Promise.reject(new Error('no network in this test'))) as typeof fetch,
    env: {},
    cwd: dir,
    homeDir: dir,
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: () => true },
    stdin,
    clock: () => new Date(0),
  };
  await runCli([...path, '--help'], deps);
  return out;
}

const helpCache = new Map<string, Promise<string>>();
const helpOf = (path: string[]): Promise<string> => {
  const key = path.join(' ');
  if (!helpCache.has(key)) helpCache.set(key, help(path));
  return helpCache.get(key) as Promise<string>;
};

/** The deepest command named by the leading words of `argv`, and its long options. */
async function commandOf(argv: string[]): Promise<{ path: string[]; flags: Set<string> }> {
  let path: string[] = [];
  for (const w of argv) {
    if (w.startsWith('-')) break;
    const next = [...path, w];
    const text = await helpOf(next);
    if (!new RegExp(`^Usage: ctxpkg ${next.join(' ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:[ |]|$)`, 'm').test(text)) break;
    path = next;
  }
  const text = await helpOf(path);
  const options = text.slice(text.indexOf('\nOptions:'), text.search(/\n(?:Commands|Examples):|$/));
  return { path, flags: new Set([...options.matchAll(/(?:^|[\s,])(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1] as string)) };
}

/** A `serve --help` default, e.g. the port or the largest package. */
async function serveDefault(flag: string): Promise<number> {
  const text = (await helpOf(['registry', 'serve'])).replace(/\s+/g, ' ');
  const m = new RegExp(`${flag} [^(]*\\((?:[A-Z_]+; )?default (\\d+)`).exec(text);
  expect(m, `serve --help states the default of ${flag}`).not.toBeNull();
  return Number(m?.[1]);
}

describe('README "Operating a registry"', () => {
  it('uses only flags its ctxpkg commands have', async () => {
    const lines = invocations();
    expect(lines.length).toBeGreaterThan(15);
    const wrong: string[] = [];
    for (const line of lines) {
      const argv = words(line).slice(1);
      const { path, flags } = await commandOf(argv);
      expect(path.length, `"${line}" names a command`).toBeGreaterThan(0);
      for (const w of argv) {
        const flag = /^(--[a-z][a-z0-9-]*)/.exec(w)?.[1];
        if (flag && !flags.has(flag)) wrong.push(`${line}: ctxpkg ${path.join(' ')} has no ${flag}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('names only environment variables ctxpkg reads', () => {
    const src = ['packages/cli/src/commands/registry.ts', 'packages/cli/src/commands/registry-admin.ts', 'packages/cli/src/commands/registry-log.ts']
      .map((f) => readFileSync(join(ROOT, f), 'utf8'))
      .join('\n');
    const named = new Set([...section().matchAll(/\bCTXPKG_REGISTRY_[A-Z_]+\b/g)].map((m) => m[0]));
    expect(named.size).toBeGreaterThan(3);
    expect([...named].filter((v) => !src.includes(v))).toEqual([]);
  });

  it('shows a config file serve reads, with the keys of its flags', async () => {
    const [json] = blocks('json');
    const file = join(dir, 'registry.json');
    writeFileSync(file, json as string);
    const read = readServeConfigFile(file);
    const flags = (await commandOf(['registry', 'serve'])).flags;
    for (const key of Object.keys(JSON.parse(json as string) as object)) expect(flags.has(`--${key}`), key).toBe(true);
    expect(read.db).toMatch(/^postgres:\/\//);
  });

  it('creates the PostgreSQL role it gives the database to', () => {
    const sh = blocks('sh').join('\n');
    for (const m of sh.matchAll(/createdb\b[^\n]*\s-O\s+(\S+)/g)) {
      expect(sh, `createdb -O ${m[1]} needs the role first`).toMatch(new RegExp(`createuser\\b[^\\n]*\\s${m[1]}(?:\\s|$)`, 'm'));
    }
  });

  it('gives a systemd unit that starts: network-online wanted, state directory created, serve as the command', async () => {
    const [unit] = blocks('ini');
    expect(unit).toBeDefined();
    const values = (key: string): string[] => [...(unit as string).matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => (m[1] as string).trim());
    // systemd.special(7): ordering After= network-online.target without Wants= does not pull it in.
    if (values('After').join(' ').includes('network-online.target')) expect(values('Wants').join(' ')).toContain('network-online.target');
    // ReadWritePaths= on a missing directory fails the start (226/NAMESPACE); StateDirectory= creates it.
    const state = values('StateDirectory').flatMap((v) => v.split(/\s+/)).map((d) => `/var/lib/${d}`);
    for (const p of values('ReadWritePaths').flatMap((v) => v.split(/\s+/))) expect(state, `ReadWritePaths=${p} must exist`).toContain(p);
    const user = values('User')[0];
    if (user) expect(section()).toMatch(new RegExp(`useradd [^\`]*\\b${user}\\b`));
    const [exec] = values('ExecStart');
    const argv = words(exec as string);
    expect(argv[0]).toMatch(/^\/.*\/ctxpkg$/);
    const { path, flags } = await commandOf(argv.slice(1));
    expect(path).toEqual(['registry', 'serve']);
    for (const w of argv.filter((a) => a.startsWith('--'))) expect(flags.has(w.split('=')[0] as string), w).toBe(true);
    for (const env of values('Environment')) expect(await helpOf(['registry', 'serve'])).toContain(env.split('=')[0]);
    // SIGTERM drains for up to 10 s: systemd must wait longer before SIGKILL.
    expect(Number(values('TimeoutStopSec')[0])).toBeGreaterThan(10);
  });

  it('gives an nginx site that passes whole packages to nodes it defines', async () => {
    const [site] = blocks('nginx');
    expect(site, 'an nginx example').toBeDefined();
    const size = /client_max_body_size\s+(\d+)([kmg]?);/i.exec(site as string);
    expect(size, 'nginx refuses bodies over 1 MiB unless client_max_body_size says otherwise').not.toBeNull();
    const bytes = Number(size?.[1]) * ({ '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 } as Record<string, number>)[(size?.[2] ?? '').toLowerCase()]!;
    expect(bytes).toBeGreaterThanOrEqual(await serveDefault('--max-package-bytes'));
    const upstreams = new Set([...(site as string).matchAll(/upstream\s+(\S+)\s*\{/g)].map((m) => m[1]));
    for (const m of (site as string).matchAll(/proxy_pass\s+https?:\/\/([^/;\s]+)/g)) expect(upstreams).toContain(m[1]);
    const port = await serveDefault('--port');
    for (const m of (site as string).matchAll(/^\s*server\s+[^\s:;]+:(\d+)/gm)) expect(Number(m[1])).toBe(port);
  });

  it('gives a container recipe whose entry point, port and health check are the registry\'s', async () => {
    const [recipe] = blocks('dockerfile');
    expect(recipe).toBeDefined();
    const entry = /^ENTRYPOINT\s+(\[.*\])$/m.exec(recipe as string);
    const argv = JSON.parse(entry?.[1] ?? '[]') as string[];
    expect(argv.slice(0, 2)).toEqual(['node', 'packages/cli/bin/ctxpkg.js']);
    expect(existsSync(join(ROOT, argv[1] as string))).toBe(true);
    const { path, flags } = await commandOf(argv.slice(2));
    expect(path).toEqual(['registry', 'serve']);
    for (const w of argv.filter((a) => a.startsWith('--'))) expect(flags.has(w), w).toBe(true);
    expect(Number(/^EXPOSE\s+(\d+)/m.exec(recipe as string)?.[1])).toBe(await serveDefault('--port'));
    const probe = /^HEALTHCHECK .*?(\/-\/[a-z]+)/m.exec(recipe as string)?.[1];
    expect(await helpOf(['registry', 'serve'])).toContain(`${probe} (`);
    // `COPY . .` of a checkout: the host's node_modules and builds stay out (.dockerignore).
    if (/^COPY \. \./m.test(recipe as string)) {
      const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
      expect(ignored).toContain('node_modules');
      expect(ignored).toContain('packages/*/dist');
    }
    expect(blocks('sh').join('\n')).toMatch(/docker build -t (\S+) \.[\s\S]*docker run [\s\S]*\1/);
  });
});

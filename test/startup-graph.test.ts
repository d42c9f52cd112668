/**
 * The module graph the `ctxpkg` entry point (packages/cli/src/bin.ts) loads on its hot paths
 * (issue 16): a child process runs bin.ts with a module-load recorder (support/load-recorder.mjs,
 * `--import` loader hooks) and the test asserts on the modules it resolved, so a heavy import
 * added to one of these paths fails here instead of in a benchmark (bench/startup). For
 * `<cmd> --help` one child registers every command (support/load-commands.ts) and each command
 * module's share is its closure in the recorded import graph.
 *
 * - `--version` and a no-op `install` load nothing from `@ctxpkg/format` (and no commander).
 * - `--help` loads no command module; `<cmd> --help` loads that command's module and, from the
 *   format core, at most the small leaf modules in `LIGHT_FORMAT` — never its index, the package
 *   reader, the pack compiler, or a third-party library beyond commander.
 * - `render` loads the pack compiler's own modules (`@ctxpkg/format/pack/compile`) and what they
 *   need, not the format core's index nor the pack index (issue 16 item 3); a plain render of an
 *   ASCII graph loads no library beyond commander: not unhomoglyph (its table is the generated
 *   `confusables-table.ts`, parsed on the first non-ASCII line), not RE2JS (loaded by the first
 *   glob matched: `--focus`), not `@noble/hashes` (Node hashes natively), no search or MCP code;
 *   `sync` into AGENTS.md the same, and not `yaml` or `jsonc-parser` (loaded on first use).
 * - A command that does real work (`verify <file>`) does load the format core: the recorder
 *   sees what the assertions above say is absent.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/shared.js';
import { cli, createWorld, makePackage, tempDir } from './support/cli.js';

const BIN = join(REPO_ROOT, 'packages', 'cli', 'src', 'bin.ts');
const RECORDER = pathToFileURL(join(REPO_ROOT, 'test', 'support', 'load-recorder.mjs')).href;
/** tsx's loader by URL: the child runs in a temporary project, where `tsx` does not resolve. */
const TSX = pathToFileURL(join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const FORMAT = 'packages/format/src/';
const CLI = 'packages/cli/src/';

/** Format-core modules a `--help` path may load: errors and small leaves of the start-up code (`builtin`: the feature probe for Node built-ins). */
const LIGHT_FORMAT = /^packages\/format\/src\/(errors|names|bytes|builtin|json\/[a-z0-9-]+|pack\/policy|pack\/types|versions|versions\/[a-z0-9-]+)\.ts$/;

interface Loaded {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Repository-relative paths of the files loaded (node_modules included), sorted, unique. */
  files: string[];
  /** The recorded imports: importing file → the files it imported. */
  edges: Map<string, Set<string>>;
}

/** Run `script` (bin.ts) from source in a child with the recorder; the modules it loaded. */
function load(args: string[], cwd: string, env: Record<string, string> = {}, script = BIN): Promise<Loaded> {
  const record = join(mkdtempSync(join(tmpdir(), 'ctxpkg-loads-')), 'loads.txt');
  writeFileSync(record, '');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', TSX, '--import', RECORDER, script, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, NO_COLOR: '1', ...env, CTXPKG_LOAD_RECORD: record },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const file = (u: string): string | undefined => (u.startsWith('file:') ? relative(REPO_ROOT, fileURLToPath(u)) : undefined);
      const edges = new Map<string, Set<string>>();
      const files = new Set<string>();
      for (const line of readFileSync(record, 'utf8').split('\n')) {
        const [from, to] = line.split('\t').map((u) => file(u ?? ''));
        if (!to) continue;
        files.add(to);
        if (from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
      resolve({ code, stdout, stderr, files: [...files].sort(), edges });
    });
  });
}

const formatFiles = (l: Pick<Loaded, 'files'>): string[] => l.files.filter((f) => f.startsWith(FORMAT));
const commandFiles = (l: Pick<Loaded, 'files'>): string[] => l.files.filter((f) => f.startsWith(`${CLI}commands/`) && f !== `${CLI}commands/index.ts`);
/** Packages loaded from node_modules (by name; workspace links resolve to packages/). */
const libraries = (l: Pick<Loaded, 'files'>): string[] =>
  [...new Set(l.files.filter((f) => f.startsWith('node_modules/')).map((f) => f.split('/').slice(1, f.split('/')[1].startsWith('@') ? 3 : 2).join('/')))].sort();

/**
 * Every file reachable from `roots` over the recorded imports, sorted — not through the command
 * table (commands/index.ts), whose imports are the lazy loads of each command's module.
 */
function closure(l: Loaded, roots: string[]): { files: string[] } {
  const seen = new Set<string>();
  const todo = [...roots];
  for (let f = todo.pop(); f !== undefined; f = todo.pop()) {
    if (seen.has(f)) continue;
    seen.add(f);
    if (f !== `${CLI}commands/index.ts`) todo.push(...(l.edges.get(f) ?? []));
  }
  return { files: [...seen].sort() };
}

describe('start-up module graph of bin.ts', () => {
  let project: string;

  beforeAll(async () => {
    // A project whose last install succeeded: the next `ctxpkg install` is a no-op.
    project = tempDir('ctxpkg-startup-');
    writeFileSync(join(project, 'a.ctxpkg'), makePackage('@acme/a', '1.0.0', new Uint8Array(32).fill(7)));
    const r = await cli(['install', './a.ctxpkg'], { cwd: project, fetch: createWorld().fetch });
    expect(r.code, r.stderr).toBe(0);
  });

  const env = (): Record<string, string> => ({ CTXPKG_HOME: join(project, '.home'), CTXPKG_HOME_DIR: project });

  it('--version loads nothing from @ctxpkg/format, and no commander', async () => {
    const l = await load(['--version'], project, env());
    expect(l.code).toBe(0);
    expect(l.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(formatFiles(l)).toEqual([]);
    expect(libraries(l)).toEqual([]);
  });

  it('a no-op install answers "up to date" without loading @ctxpkg/format', async () => {
    for (const args of [['install'], ['i', '--frozen-lockfile']]) {
      const l = await load(args, project, env());
      expect(l.code, l.stderr).toBe(0);
      expect(l.stdout.split('\n')[0]).toBe('up to date');
      expect(formatFiles(l)).toEqual([]);
      expect(libraries(l)).toEqual([]);
      expect(l.files.filter((f) => f.startsWith(CLI))).not.toContain(`${CLI}program.ts`);
    }
  });

  it('--help loads no command module and only the error module of the format core', async () => {
    const l = await load(['--help'], project, env());
    expect(l.code).toBe(0);
    expect(l.stdout).toContain('Commands:');
    expect(commandFiles(l)).toEqual([]);
    expect(formatFiles(l)).toEqual([`${FORMAT}errors.ts`]);
    expect(libraries(l)).toEqual(['commander']);
  });

  it('`<cmd> --help`: each command module with what it imports, and program.ts, stay light', async () => {
    const all = await load([], project, env(), join(REPO_ROOT, 'test', 'support', 'load-commands.ts'));
    expect(all.code, all.stderr).toBe(0);
    const program = closure(all, [`${CLI}program.ts`]);
    expect(formatFiles(program)).toEqual([`${FORMAT}errors.ts`]);
    expect(commandFiles(program)).toEqual([]);
    // The modules the command table loads (its recorded imports): every command's module.
    const modules = [...(all.edges.get(`${CLI}commands/index.ts`) ?? [])].sort();
    expect(modules).toContain(`${CLI}commands/install.ts`);
    const heavy: Record<string, { format: string[]; libraries: string[] }> = {};
    for (const own of modules) {
      const c = closure(all, [own, `${CLI}program.ts`]);
      const format = formatFiles(c).filter((f) => !LIGHT_FORMAT.test(f));
      const libs = libraries(c).filter((n) => n !== 'commander');
      if (format.length || libs.length) heavy[own] = { format, libraries: libs };
    }
    expect(heavy).toEqual({});
  });

  it('`ctxpkg install --help` loads what the graph says: the install module and light modules only', async () => {
    const l = await load(['install', '--help'], project, env());
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout).toContain('Usage: ctxpkg install|i [options] [packages...]');
    expect(commandFiles(l)).toEqual([`${CLI}commands/install.ts`]);
    expect(formatFiles(l).filter((f) => !LIGHT_FORMAT.test(f))).toEqual([]);
    expect(libraries(l)).toEqual(['commander']);
  });

  it('`ctxpkg render` loads the pack compiler, not the whole format core (no package reader, merge, resolver or archive)', async () => {
    const l = await load(['render', '--now', '2026-01-01T00:00:00Z', '--out', 'pack.md'], project, env());
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout).toContain('wrote pack.md');
    const format = formatFiles(l);
    expect(format).toContain(`${FORMAT}pack/compile.ts`);
    const outside = format.filter((f) => !f.startsWith(`${FORMAT}pack/`) && !LIGHT_FORMAT.test(f));
    // The pack compiler's own dependencies (hashing, the secret screen and the word starts its gate finds) and the lockfile reader (trust).
    expect(outside).toEqual([`${FORMAT}hash.ts`, `${FORMAT}hex.ts`, `${FORMAT}lockfile.ts`, `${FORMAT}lockfile/check.ts`, `${FORMAT}secret-gate.ts`, `${FORMAT}secret-heuristics.ts`, `${FORMAT}secret-scanners.ts`, `${FORMAT}secrets.ts`, `${FORMAT}word-starts.ts`]);
  });

  it('a plain `ctxpkg render` of an ASCII graph loads no heavy library, no pack index and no search code (issue 16 item 3)', async () => {
    const l = await load(['render', '--now', '2026-01-01T00:00:00Z', '--out', 'pack.md'], project, env());
    expect(l.code, l.stderr).toBe(0);
    expect(readFileSync(join(project, '.ctxpkg', 'graph', 'merged.json'), 'utf8')).toMatch(/^[\x00-\x7f]*$/);
    // unhomoglyph (a 100 KB table and a 6,311-way regular expression at import), RE2JS (263 KB),
    // @noble/hashes: none is used by this render.
    expect(libraries(l)).toEqual(['commander']);
    const format = formatFiles(l);
    for (const heavy of ['index.ts', 'pack/index.ts', 'pack/search.ts', 'pack/search-terms.ts', 'pack/search-tokens.ts', 'pack/answer.ts', 'pack/tiers.ts', 'hash-portable.ts']) {
      expect(format).not.toContain(`${FORMAT}${heavy}`);
    }
    // A focus glob does load the glob engine, on first use: the recorder sees lazy loads too.
    const focused = await load(['render', '--now', '2026-01-01T00:00:00Z', '--focus', 'src/**/*.ts', '--out', 'focus.md'], project, env());
    expect(focused.code, focused.stderr).toBe(4); // E_NOT_FOUND: nothing is scoped; the glob was compiled first
    expect(libraries(focused)).toContain('re2js');
  });

  it('`ctxpkg sync` into AGENTS.md loads the same compiler modules, no format or pack index, and no yaml or jsonc-parser (issue 16 item 3)', async () => {
    const l = await load(['sync', '--now', '2026-01-01T00:00:00Z'], project, env());
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout).toMatch(/^(write|unchanged): AGENTS\.md$/m);
    // jsonc-parser reads MCP configs: it does not run here (nor yaml: sync decides unquoted globs without it).
    expect(libraries(l)).toEqual(['commander']);
    const format = formatFiles(l);
    expect(format).toContain(`${FORMAT}pack/compile.ts`);
    for (const heavy of ['index.ts', 'pack/index.ts', 'pack/search.ts', 'pack/answer.ts', 'hash-portable.ts']) expect(format).not.toContain(`${FORMAT}${heavy}`);
  });

  it('the recorder sees the format core where a command really uses it (verify <file>)', async () => {
    const l = await load(['verify', 'a.ctxpkg'], project, env());
    expect(l.code, l.stderr).toBe(0);
    expect(formatFiles(l)).toContain(`${FORMAT}index.ts`);
    expect(formatFiles(l).filter((f) => !LIGHT_FORMAT.test(f)).length).toBeGreaterThan(10);
  });
});

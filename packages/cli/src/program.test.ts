import { describe, expect, it } from 'vitest';
import { memoryDeps } from './__tests__/memory-deps.js';
import { COMMANDS } from './commands/index.js';
import { commandsFor, createProgram, runCli } from './program.js';

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const m = memoryDeps('ctxpkg-prog-');
  const code = await runCli(argv, m.deps);
  return { code, stdout: m.stdout(), stderr: m.stderr() };
}

describe('usage errors go through the one error printer', () => {
  it('unknown option: error E_USAGE with a hint naming the command, exit 2', async () => {
    const r = await run(['ls', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error E_USAGE: unknown option '--bogus'\nhint: run `ctxpkg ls --help` for usage\n");
    expect(r.stdout).toBe('');
  });
  it('unknown option: "did you mean" names the option it begins, or one a typo away, in the house form', async () => {
    const a = await run(['install', '--frozen']);
    expect(a.code).toBe(2);
    expect(a.stderr).toBe("error E_USAGE: unknown option '--frozen'; did you mean --frozen-lockfile?\nhint: run `ctxpkg install --help` for usage\n");
    const b = await run(['install', '--frozn-lockfile']);
    expect(b.stderr).toBe("error E_USAGE: unknown option '--frozn-lockfile'; did you mean --frozen-lockfile?\nhint: run `ctxpkg install --help` for usage\n");
    const c = await run(['sync', '--dryrun']);
    expect(c.stderr).toContain("unknown option '--dryrun'; did you mean --dry-run?");
    const j = await run(['install', '--frozen', '--json']);
    expect(JSON.parse(j.stdout).error).toMatchObject({ code: 'E_USAGE', details: { suggestions: ['--frozen-lockfile'] } });
  });
  it('missing argument of a nested command, and an unknown command', async () => {
    const a = await run(['registry', 'namespace', 'create']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("error E_USAGE: missing required argument 'namespace'\nhint: run `ctxpkg registry namespace create --help` for usage");
    const b = await run(['bogus']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/^error E_USAGE: unknown command 'bogus'/);
  });
  it('prints the JSON error form when --json appears anywhere', async () => {
    for (const argv of [['ls', '--bogus', '--json'], ['--json', 'search']]) {
      const r = await run(argv);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'E_USAGE', hint: expect.stringContaining('--help') });
    }
  });
});

describe('global flags before the command', () => {
  it('`ctxpkg --json <command>` works like `ctxpkg <command> --json`', async () => {
    const before = await run(['--json', 'verify', 'missing.ctxpkg']);
    const after = await run(['verify', 'missing.ctxpkg', '--json']);
    expect(JSON.parse(before.stdout)).toEqual(JSON.parse(after.stdout));
    expect(before.code).toBe(after.code);
  });
});

describe('help texts', () => {
  it('mcp --help never recommends `npx ctxpkg` (the npm name is not ours)', async () => {
    const r = await run(['mcp', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('claude mcp add ctxpkg -- ctxpkg mcp');
    expect(r.stdout).not.toMatch(/\$ .*npx|"command": "npx"/);
  });
  it('quickstart --help says which AGENTS.md it falls back to', async () => {
    expect((await run(['quickstart', '--help'])).stdout).toMatch(/default: \.\/AGENTS\.md; without one,\s+the AGENTS\.md bundled with ctxpkg/);
  });
});

describe('the lazy command table (commands/index.ts)', () => {
  it('the stub listing of `ctxpkg --help` is the listing of the fully loaded program', async () => {
    const full = await createProgram(memoryDeps('ctxpkg-prog-').deps);
    const lazy = await createProgram(memoryDeps('ctxpkg-prog-').deps, { exitCode: 0 }, []);
    expect(lazy.helpInformation()).toBe(full.helpInformation());
    // Every registered top-level command has a table entry, and no entry is left unregistered.
    expect(lazy.commands.map((c) => c.name())).toEqual(full.commands.map((c) => c.name()));
    expect(lazy.commands.length).toBe(COMMANDS.length);
  });
  it('each command loads with the others as stubs, in the same place', async () => {
    const full = (await createProgram(memoryDeps('ctxpkg-prog-').deps)).helpInformation();
    for (const entry of COMMANDS) {
      const one = await createProgram(memoryDeps('ctxpkg-prog-').deps, { exitCode: 0 }, [entry]);
      expect(one.helpInformation()).toBe(full);
    }
  });
  it('argv names the one module to load: the first word, the word after `help`, or none', () => {
    const usage = (argv: string[]): string[] => commandsFor(argv).map((e) => e.usage);
    expect(usage(['install'])).toEqual(['install [packages...]']);
    expect(usage(['--json', 'i', '--frozen-lockfile'])).toEqual(['install [packages...]']);
    expect(usage(['help', 'unyank'])).toEqual(['unyank <package@version>']);
    expect(usage(['registry', 'token', 'list'])).toEqual(['registry']);
    expect(usage(['--help'])).toEqual([]);
    expect(usage(['help'])).toEqual([]);
    expect(usage(['bogus', 'install'])).toEqual([]);
    expect(usage(['--', 'install'])).toEqual([]);
  });
  it('`ctxpkg help <cmd>` and `ctxpkg unyank --help` show the real command', async () => {
    const a = await run(['help', 'install']);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('--frozen-lockfile');
    const b = await run(['unyank', '--help']);
    expect(b.code).toBe(0);
    expect(b.stdout).toContain('Usage: ctxpkg unyank [options] <package@version>');
    expect(b.stdout).toContain('ctxpkg unyank @acme/auth-context@1.2.0');
  });
});

/**
 * New-user trial 2, findings 1 and 2 (always-on budget selection), end to end: three packages
 * made from real instruction files (codex AGENTS.md, the agentsmd example, nemo's .cursor/rules)
 * installed together with `init --trust @acme`, as the trial did. Checked as an agent reads
 * AGENTS.md: the codex file's top-level rule list is delivered (at least its lead-in and first
 * items, with a note when partial), a partly delivered section says so, security imperatives win
 * over routine advice, and the small package keeps all of its items.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { cli, createWorld, tempDir, type World } from './support/cli.js';
import { describeShared, sharedText } from './support/shared.js';

const PKGS: Array<{ name: string; files: Record<string, string>; from: string[] }> = [
  { name: '@acme/codex', files: { 'codex/AGENTS.md': 'AGENTS.md' }, from: ['AGENTS.md'] },
  { name: '@acme/web', files: { 'agentsmd/AGENTS.md': 'AGENTS.md' }, from: ['AGENTS.md'] },
  { name: '@acme/nat', files: { 'nemo-agent-toolkit/.cursor/rules/general.mdc': '.cursor/rules/general.mdc', 'nemo-agent-toolkit/.cursor/rules/nat-tests/general.mdc': '.cursor/rules/nat-tests/general.mdc' }, from: ['.cursor/rules'] },
];

describeShared('trial 2: three corpus packages installed together with trust', () => {
  let world: World;
  let env: Record<string, string>;
  let project: string;
  let agents: string;
  let receipt: { always_on: { delivered: Array<{ package: string; id: string; flags: string[] }>; omissions: Array<{ package: string; id: string; reason: string }> } };
  const run = (args: string[], cwd = project) => cli(args, { cwd, fetch: world.fetch, env, home: join(project, '.home') });

  beforeAll(async () => {
    world = createWorld();
    const reg = await world.addRegistry('trial.test');
    const acme = await reg.namespace('acme');
    project = tempDir();
    env = { CTXPKG_HOME: join(project, '.home'), CTXPKG_REGISTRY: reg.url, CTXPKG_TOKEN: acme };
    for (const p of PKGS) {
      const dir = tempDir();
      for (const [rel, to] of Object.entries(p.files)) {
        mkdirSync(dirname(join(dir, to)), { recursive: true });
        writeFileSync(join(dir, to), sharedText(`corpus/${rel}`));
      }
      const c = await run(['create', '--name', p.name, '--version', '1.0.0', '--from', ...p.from, '--out', join(dir, 'p.ctxpkg')], dir);
      expect(c.code, c.stderr).toBe(0);
      expect((await run(['publish', join(dir, 'p.ctxpkg')])).code).toBe(0);
    }
    writeFileSync(join(project, 'AGENTS.md'), '# Consumer\n\n- Our own line.\n');
    expect((await run(['init', '--trust', '@acme'])).code).toBe(0);
    const i = await run(['install', '@acme/web', '@acme/codex', '@acme/nat']);
    expect(i.code, i.stderr + i.stdout).toBe(0);
    agents = readFileSync(join(project, 'AGENTS.md'), 'utf8');
    receipt = JSON.parse(readFileSync(join(project, '.ctxpkg/receipts/sync.json'), 'utf8'));
    if (process.env.CTXPKG_TRIAL_DUMP) {
      writeFileSync(join(process.env.CTXPKG_TRIAL_DUMP, 'AGENTS.md'), agents);
      writeFileSync(join(process.env.CTXPKG_TRIAL_DUMP, 'sync.json'), JSON.stringify(receipt, null, 2));
    }
  });

  const block = (): string => agents.slice(agents.indexOf('<!-- ctxpkg:begin'), agents.indexOf('<!-- ctxpkg:end'));
  const after = (needle: string): string => {
    const b = block();
    const i = b.indexOf(needle);
    expect(i, needle).toBeGreaterThanOrEqual(0);
    return b.slice(i);
  };

  it("finding 1: the codex file's top-level rule list is delivered from its lead-in, with a note when partial", () => {
    const list = after('In the codex-rs folder where the rust code lives:\n\n- Crate names are prefixed with `codex-`.');
    expect(list).toContain('- Never add or modify any code related to `CODEX_SANDBOX_NETWORK_DISABLED_ENV_VAR`');
    const rec = receipt.always_on.delivered.find((d) => d.id === '@acme/codex#AGENTS.md:~56ab0c16') as { items?: { delivered: number; total: number } } | undefined;
    expect(rec, 'the rule list node is delivered').toBeDefined();
    if (rec?.items) {
      // Partial: the note follows the list, before the next heading.
      const upToHeading = list.slice(0, list.indexOf('\n#'));
      expect(upToHeading).toMatch(/\n\(ctxpkg: \d+ of \d+ items here; the rest: `ctxpkg render --focus "[^"`]+"`\)\n/);
    }
    expect(receipt.always_on.omissions.map((o) => o.id)).not.toContain('@acme/codex#AGENTS.md:~56ab0c16');
  });

  it('finding 2: security rules are not lost to routine advice; partial sections say how many items they show', () => {
    const sec = after('#### Security\n');
    const body = sec.slice(0, sec.indexOf('\n#', 1));
    expect(body).toContain('- Never commit API keys, credentials or personal data');
    if (body.includes('Periodically run')) expect(body.indexOf('Never commit API keys')).toBeLessThan(body.indexOf('Periodically run'));
    const b = block();
    // Every note counts fewer delivered items than the section has.
    const partialNotes = b.match(/\(ctxpkg: (\d+) of (\d+) items here/g) ?? [];
    for (const n of partialNotes) {
      const [, a, t] = /(\d+) of (\d+)/.exec(n) as RegExpExecArray;
      expect(Number(a)).toBeLessThan(Number(t));
    }
  });

  it('every partial-section note names a command that prints that whole section, first after the header', async () => {
    const b = block();
    const notes = [...b.matchAll(/\n\(ctxpkg: (\d+) of (\d+) items here; the rest: `ctxpkg render --focus "([^"`]+)"`\)\n/g)];
    expect(notes.length).toBeGreaterThan(0);
    for (const m of notes) {
      // The section the note closes: its heading line and what the block shows of it.
      const upTo = b.slice(0, m.index);
      const h = [...upTo.matchAll(/^(#{3,6} .+|\*\*.+\*\*)$/gm)].pop() as RegExpMatchArray;
      const shown = upTo.slice((h.index as number) + h[0].length).split('\n').filter((l) => l.trim() !== '' && !l.startsWith('<!--'));
      const r = await run(['render', '--focus', m[3] as string]);
      expect(r.code, `${m[3]}: ${r.stderr}`).toBe(0);
      const out = r.stdout;
      expect(out, m[3]).toContain('\nnot shown: none\n');
      // Only that section (and its subsections): its heading is the last heading before its items,
      // and the items come right after the enclosing headers — the first lines an agent reads.
      const items = out.indexOf(`\n${h[0]}\n`);
      expect(items, `${m[3]}: ${out.slice(0, 1200)}`).toBeGreaterThan(0);
      expect(out.slice(0, items)).not.toMatch(/^(?!#|<!--|packages:|focus:|selection:|not shown:|Trust:|--- BEGIN|The sections|$).+$/m);
      for (const line of shown) expect(out, `${m[3]}: ${line}`).toContain(line);
      // The rest: more of the section than the block shows.
      const lines = out.slice(items + h[0].length + 2).split('\n').filter((l) => l.trim() !== '' && !l.startsWith('<!--') && !l.startsWith('--- END'));
      expect(lines.length, m[3]).toBeGreaterThan(shown.length);
    }
  });

  it('render --focus <a heading> prints that section first; words that name nothing are E_NOT_FOUND (exit 4) with a hint', async () => {
    const r = await run(['render', '--focus', 'Text wrapping']);
    expect(r.code, r.stderr).toBe(0);
    const body = r.stdout.slice(r.stdout.indexOf('\n## '));
    // The enclosing headings, then the section: the first rule is within the first lines.
    expect(body).toMatch(/^\n## Instructions from @acme\/codex@1\.0\.0\n\n### [^\n]+\n<!-- AGENTS\.md:[^\n]+\n\n#### TUI code conventions\n<!-- [^\n]+\n\n##### Text wrapping\n<!-- AGENTS\.md:\d+-\d+ -->\n- Always use textwrap::wrap to wrap plain strings\.\n/);
    expect(r.stdout).not.toContain('Snapshot tests');
    expect(r.stdout).toContain('\nnot shown: none\n');
    // Any case, punctuation or a heading path names it too.
    const path = await run(['render', '--focus', 'tui code conventions > TEXT WRAPPING!']);
    expect(path.stdout.replace(/\nfocus: [^\n]*\n/, '\n')).toBe(r.stdout.replace(/\nfocus: [^\n]*\n/, '\n'));
    const none = await run(['render', '--focus', 'zzqqxx nonexistentword']);
    expect(none.code).toBe(4);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe('error E_NOT_FOUND: no installed heading or item matches "zzqqxx nonexistentword"\nhint: `ctxpkg ls --nodes` lists every installed item and heading\n');
    const near = await run(['render', '--focus', 'Txet wraping']);
    expect(near.code).toBe(4);
    expect(near.stderr).toContain('ctxpkg render --focus "Text wrapping"');
  });

  it('finding 2: the small package keeps all its items next to two big ones', () => {
    expect(receipt.always_on.omissions.filter((o) => o.package === '@acme/web')).toEqual([]);
    expect(block()).toContain('* Co-locate component-specific styles in the same folder as the component when');
  });

  it('same input, same bytes: a second sync changes nothing', async () => {
    const r = await run(['sync']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(project, 'AGENTS.md'), 'utf8')).toBe(agents);
  });
});

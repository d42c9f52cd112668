/**
 * `ctxpkg outdated`: for each declared dependency, the locked version ("current"), the version
 * `ctxpkg update` would install ("wanted": the newest non-yanked version the range allows, but
 * never older than a current version that still satisfies the range — update keeps a yanked
 * locked version rather than downgrade, install/resolve-step.ts) and the newest non-yanked stable
 * version ("latest"; a prerelease only when there is no stable version). A version the registry
 * lists as yanked is marked "(yanked)" (JSON: `current_yanked`, `wanted_yanked`). Columns are
 * aligned (widths in characters); a row whose latest is older than its current version says why
 * (`note`: the current version was yanked, or it is a pre-release and latest counts stable ones).
 */
import type { Command } from 'commander';
import { compareVersions, maxSatisfying, satisfies } from '@ctxpkg/format/versions';
import type { CliDeps } from '../deps.js';
import { examples, type CommandContext, type CommandResult } from '../command.js';
import { tableCell } from '../output.js';

/**
 * The version `outdated` calls latest: the highest non-yanked stable version; a prerelease only
 * when no stable version exists (prereleases are opt-in, ADVERSARIAL HB-01; the same rule as the
 * registry's `latest`, spec/registry.md "Index"). Null for an empty list.
 */
export function latestOf(versions: readonly string[]): string | null {
  const sorted = [...versions].sort(compareVersions);
  const stable = sorted.filter((v) => !/^[^+]*-/.test(v));
  return stable.pop() ?? sorted.pop() ?? null;
}

export async function runOutdated(opts: { registry?: string }, deps: CliDeps): Promise<CommandResult> {
  const { readLock } = await import('../install/lockio.js');
  const { registryFor } = await import('../config.js');
  const { openSession } = await import('../session.js');
  const session = openSession(deps, opts.registry);
  const lock = readLock(session.root).state;
  const rows: Array<{
    name: string;
    range: string;
    current: string | null;
    current_yanked: boolean;
    wanted: string | null;
    wanted_yanked: boolean;
    latest: string | null;
    outdated: boolean;
    note: string | null;
  }> = [];
  for (const name of Object.keys(session.manifest.dependencies).sort()) {
    const range = session.manifest.dependencies[name];
    if (range.startsWith('file:')) continue;
    const idx = await session.client.index(registryFor(name, session.settings), name);
    const yanked = new Set(idx.versions.filter((v) => v.yanked).map((v) => v.version));
    const live = idx.versions.filter((v) => !v.yanked).map((v) => v.version);
    const latest = latestOf(live);
    const current = lock.packages.get(name)?.version ?? null;
    let wanted = maxSatisfying(live, range);
    if (current !== null && satisfies(current, range) && (wanted === null || compareVersions(wanted, current) < 0)) wanted = current;
    const currentYanked = current !== null && yanked.has(current);
    rows.push({
      name,
      range,
      current,
      current_yanked: currentYanked,
      wanted,
      wanted_yanked: wanted !== null && yanked.has(wanted),
      latest,
      outdated: current !== wanted || current !== latest || currentYanked,
      note: olderLatestNote(current, currentYanked, latest, [...yanked]),
    });
  }
  if (rows.length === 0) return { text: ['(no registry dependencies)'], json: { packages: rows } };
  const mark = (v: string | null, y: boolean): string => `${v ?? '-'}${y ? ' (yanked)' : ''}`;
  const table = [
    ['package', 'current', 'wanted', 'latest', ''],
    ...rows.map((r) => [r.name, mark(r.current, r.current_yanked), mark(r.wanted, r.wanted_yanked), r.latest ?? '-', r.note ?? (r.outdated ? '' : 'up to date')]),
  ];
  return { text: alignColumns(table), json: { packages: rows } };
}

/**
 * Why `latest` is older than `current`, or null when it is not: every newer version (the current
 * one included) was yanked by its publisher, or the current version is a pre-release while
 * latest counts stable versions only. `yanked` lists the index's yanked versions.
 */
export function olderLatestNote(current: string | null, currentYanked: boolean, latest: string | null, yanked: readonly string[]): string | null {
  if (current === null || latest === null || compareVersions(latest, current) >= 0) return null;
  const newer = yanked.filter((v) => compareVersions(v, latest) > 0).sort(compareVersions);
  if (currentYanked || newer.length > 0) {
    const shown = newer.length > 3 ? `${newer.slice(0, 3).join(', ')} and ${newer.length - 3} more` : newer.join(', ');
    return `latest is older than current: the publisher yanked ${shown}; ${latest} is the newest version not yanked`;
  }
  return `latest is older than current: ${current} is a pre-release, and latest counts stable versions only`;
}

/**
 * Pad every column but the last to its widest cell (characters), two spaces apart, trailing
 * spaces removed: `ctxpkg outdated`'s table (npm outdated's layout). A tab or line break inside
 * a cell is shown as an escape (`\u{000a}`), so every row stays one line.
 */
export function alignColumns(input: readonly (readonly string[])[]): string[] {
  // A cell never breaks its row: tabs and line breaks are written as escapes (output.ts tableCell).
  const rows = input.map((r) => r.map(tableCell));
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, [...c].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  ').trimEnd());
}

export function register(program: Command, ctx: CommandContext): void {
  ctx
    .command(program, 'outdated', 'show declared dependencies with newer versions')
    .option('--registry <url>', 'registry for packages whose scope has no registry configured')
    .addHelpText('after', examples(['ctxpkg outdated', 'ctxpkg outdated --json']))
    .action(ctx.action(async (opts: { registry?: string }) => runOutdated(opts, ctx.deps)));
}

/**
 * The pages' JSX compiles to Hono's runtime whatever tsconfig a TypeScript runner finds: each
 * `.tsx` file names its runtime in a pragma (`@jsxRuntime automatic`, `@jsxImportSource
 * hono/jsx`). Without it, `node --import tsx …/bin.ts registry serve` started from a directory
 * with no tsconfig.json above it compiled the pages to `React.createElement` and every page
 * answered "React is not defined".
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const HERE = dirname(fileURLToPath(import.meta.url));
const SRC = join(HERE, '..', '..', '..');

/** Every `.tsx` file under packages/<name>/src (recursively). */
function tsxFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && e.name !== 'node_modules' && e.name !== 'dist') out.push(...tsxFiles(p));
    else if (e.isFile() && e.name.endsWith('.tsx')) out.push(p);
  }
  return out;
}

describe('registry pages: JSX runtime pragma', () => {
  const files = readdirSync(SRC).flatMap((pkg) => {
    try {
      return tsxFiles(join(SRC, pkg, 'src'));
    } catch {
      return [];
    }
  });

  it('finds the pages', () => {
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  it.each(files.map((f) => [f.slice(SRC.length + 1), f]))('%s names the Hono JSX runtime in its first lines', (_name, file) => {
    const head = readFileSync(file as string, 'utf8').split('\n').slice(0, 2).join('\n');
    expect(head).toContain('@jsxRuntime automatic');
    expect(head).toContain('@jsxImportSource hono/jsx');
  });

  it('renders a page under tsx from a directory without tsconfig.json', () => {
    const cwd = mkdtempSync(join(os.tmpdir(), 'ctxpkg-jsx-'));
    try {
      const tsx = createRequire(import.meta.url).resolve('tsx/esm');
      const common = pathToFileURL(join(HERE, 'common.tsx')).href;
      const layout = pathToFileURL(join(HERE, 'layout.tsx')).href;
      const script = `const c = await import(${JSON.stringify(common)}); const l = await import(${JSON.stringify(layout)}); process.stdout.write(l.renderPage(c.TypeBadge({ type: 'gotcha' })));`;
      const r = spawnSync(process.execPath, ['--conditions=source', '--import', pathToFileURL(tsx).href, '--input-type=module', '-e', script], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: cwd } });
      expect(r.stderr).not.toContain('React is not defined');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^<!doctype html><[a-z]+[^>]*>[^<]*gotcha/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

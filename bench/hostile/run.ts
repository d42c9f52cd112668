/**
 * Hostile-input benchmark (issue 11 items 2, 3, 6, 7). Run: `npm run bench:hostile`
 * (= `node --expose-gc --conditions=source --import tsx bench/hostile/run.ts`). Prints figures;
 * asserts nothing (test/adversarial/* assert behaviour and operation counts).
 *
 * Each case pairs a worst-case input with an honest input of the same size and prints, for both,
 * the median wall time and the heap growth of one run (`--expose-gc`: collected before), and the
 * ratio worst ÷ honest. A linear implementation keeps the ratio small and flat as the size grows;
 * the figures are printed at two sizes so growth is visible.
 *
 * - secrets (item 2): `scanSecrets` on the worst family of each former super-linear rule
 *   (`key:` + a run of `_`, dense `eyJ-`, …) vs. prose with a few real assignments.
 * - globs (item 3): `render --focus` matching of pathological scope globs vs. ordinary ones.
 * - registry responses (item 6): `install` against a registry answering a gzip bomb / an oversized
 *   index vs. an honest index of the same size on the wire.
 * - file: dependencies (item 7): reading `file:/dev/zero`-like and oversized inputs vs. an honest
 *   package file.
 * - importers (issue 11, `import-cases.ts`): `create`'s importers on identical bullets/headings,
 *   deeply nested lists and quotes, and hostile YAML frontmatter vs. honest files of the same size.
 */
import { compileGlob, focusScore, parseFocus, scanSecrets } from '@ctxpkg/format';
import { sized, smokeBanner } from '../smoke.js';
import { registryCases, fileCases } from './io-cases.js';
import { importCases } from './import-cases.js';

smokeBanner('hostile');

const SIZES = sized([50_000, 200_000], [2_000, 4_000]);
const RUNS = sized(5, 1);
const gc = (globalThis as { gc?: () => void }).gc;

export interface Measure {
  ms: number;
  heapKiB: number;
}

/** Median time of RUNS runs and the heap growth of the first (after a collection). */
export async function measure(fn: () => unknown | Promise<unknown>): Promise<Measure> {
  const times: number[] = [];
  let heap = 0;
  for (let i = 0; i < RUNS; i++) {
    gc?.();
    const before = process.memoryUsage();
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
    const after = process.memoryUsage();
    if (i === 0) heap = Math.max(0, after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)] as number, heapKiB: heap / 1024 };
}

/** One printed line: worst vs honest. */
export function line(section: string, label: string, worst: Measure, honest: Measure): void {
  const ratio = worst.ms / Math.max(honest.ms, 0.001);
  console.log(
    `${section}: ${label}: worst ${worst.ms.toFixed(2)} ms, heap +${worst.heapKiB.toFixed(0)} KiB | honest ${honest.ms.toFixed(2)} ms, heap +${honest.heapKiB.toFixed(0)} KiB | worst/honest ${ratio.toFixed(1)}×`,
  );
}

function honestText(n: number): string {
  const para = 'Rotate the signing keys every 24 hours; password = "Tr0ub4dor&3x-rotated" lives in the vault. See docs/auth.md for the flow.\n';
  return para.repeat(Math.ceil(n / para.length)).slice(0, n);
}

async function secrets(): Promise<void> {
  const families: Array<[string, (n: number) => string]> = [
    ['key: + run of _', (n) => 'key:' + '_'.repeat(n - 4)],
    ['password= + run of .', (n) => 'password=' + '.'.repeat(n - 9)],
    ['dense eyJ-', (n) => 'eyJ-'.repeat(n / 4)],
    ['key=x + dense ghp_--', (n) => ('key=x ' + 'ghp_--'.repeat(n / 6)).slice(0, n)],
    ['dense PEM headers', (n) => '-----BEGIN RSA PRIVATE KEY-----\n'.repeat(n / 32)],
    ['one token run', (n) => 'aB3dE5fG7hI9jK1lM3nO5pQ7'.repeat(n / 24)],
  ];
  for (const n of SIZES) {
    const honest = await measure(() => scanSecrets(honestText(n)));
    for (const [label, make] of families) {
      const text = make(n);
      line('secrets', `${label}, ${text.length} chars`, await measure(() => scanSecrets(text)), honest);
    }
  }
}

async function globs(): Promise<void> {
  const nodes = sized(2_000, 50);
  const families: Array<[string, string, string]> = [
    ['*? pairs', 'src/' + '*?'.repeat(120), 'src/' + 'a'.repeat(300) + '/'],
    ['{a,*} products', 'src/' + '{a,*}'.repeat(90) + 'b', 'src/' + 'a'.repeat(400)],
    ['**/a chains', '**/a'.repeat(100) + '/**/b', 'a/'.repeat(200) + 'c'],
  ];
  for (const [label, glob, focusPath] of families) {
    const focus = parseFocus(focusPath)!;
    const honestFocus = parseFocus('src/api/handlers/users.ts')!;
    const run = (f: typeof focus, g: string) => () => {
      for (let i = 0; i < nodes; i++) focusScore(f, { id: `n${i}`, content: '', file_path: `src/module${i % 50}/file${i}.ts` }, [g]);
    };
    const worst = await measure(run(focus, glob));
    const honest = await measure(run(honestFocus, 'src/**/*.ts'));
    line('globs', `${label} (${glob.length}-char glob, ${nodes} nodes)`, worst, honest);
  }
  const compile = await measure(() => compileGlob('{a,b}'.repeat(100)));
  const compileHonest = await measure(() => compileGlob('src/{api,web}/**/*.{ts,tsx}'));
  line('globs', 'compile 500-char brace product vs ordinary glob', compile, compileHonest);
}

await secrets();
await globs();
await registryCases(measure, line);
await fileCases(measure, line);
await importCases(measure, line);
console.log('hostile: done (figures only; loaded machines inflate every time, compare ratios)');

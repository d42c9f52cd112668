/**
 * Bench: retrieval through the MCP server (issue 17 item 5). The packages made from
 * `../shared/corpus` (bench/render/corpus.ts) are installed into a temporary project; `ctxpkg mcp`
 * is spawned from source and asked every question of `questions.ts` with `search_context` and its
 * defaults (5 hits, 4 KiB), through the official SDK client (which validates each answer against
 * the advertised output schema).
 *
 *   npm run bench:retrieval
 *
 * Prints recall@1 and recall@3 (a question counts when one of its answer substrings is in the text
 * of a hit within the first 1 / 3) and the median and largest answer size (UTF-8 bytes of the text
 * an agent reads), then each question missed at 3. Targets: recall@3 ≥ 95 %, median ≤ 2 KiB.
 * Smoke mode asks the first 6 questions. No timing.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { homeDeps, makeProject } from '../../packages/cli/src/targets/__tests__/harness.js';
import { corpusDir, corpusFiles, corpusGraph } from '../render/corpus.js';
import { sharedDir } from '../render/ratio.js';
import { sized, smokeBanner, verdict } from '../smoke.js';
import { QUESTIONS } from './questions.js';

const REPO = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const TSX = fileURLToPath(import.meta.resolve('tsx'));
const BIN = join(REPO, 'packages', 'cli', 'src', 'bin.ts');
const RECALL_TARGET = 0.95;
const MEDIAN_TARGET = 2048;

type Hit = { rank: number; id: string; file: string | null; lines: [number, number] | null; text: string };
type Result = { content: Array<{ text: string }>; structuredContent?: { hits: Hit[] }; isError?: boolean };

smokeBanner('retrieval');
const dir = corpusDir(sharedDir());
if (!dir) {
  console.log(`retrieval: skipped (${join(sharedDir(), 'corpus')} is absent; set CTXPKG_SHARED_DIR)`);
  process.exit(0);
}
const files = corpusFiles(dir);
// Every answer must be in its file: a question whose answer is not there measures nothing.
for (const q of QUESTIONS) {
  const text = readFileSync(join(dir, q.file), 'utf8');
  if (!q.answers.some((a) => text.includes(a))) throw new Error(`bench: no answer of "${q.q}" is in ${q.file}`);
}
const questions = QUESTIONS.slice(0, sized(QUESTIONS.length, 6));
const root = makeProject({ graph: corpusGraph(files) });
const transport = new StdioClientTransport({
  command: process.execPath,
  args: ['--conditions=source', '--import', TSX, BIN, 'mcp'],
  cwd: root,
  env: { ...getDefaultEnvironment(), ...homeDeps(root).env } as Record<string, string>,
  stderr: 'inherit',
});
const client = new Client({ name: 'bench-retrieval', version: '1.0.0' });
try {
  await client.connect(transport);
  await client.listTools();
  let at1 = 0;
  let at3 = 0;
  const sizes: number[] = [];
  const misses: string[] = [];
  for (const q of questions) {
    const r = (await client.callTool({ name: 'search_context', arguments: { query: q.q } })) as Result;
    if (r.isError || !r.structuredContent) throw new Error(`bench: search_context failed for "${q.q}": ${r.content.map((c) => c.text).join('')}`);
    const text = r.content.map((c) => c.text).join('');
    sizes.push(Buffer.byteLength(text, 'utf8'));
    const found = r.structuredContent.hits.findIndex((h) => q.answers.some((a) => h.text.includes(a)));
    if (found === 0) at1++;
    if (found >= 0 && found < 3) at3++;
    else misses.push(`  missed@3: "${q.q}" (${q.file}) → ${found < 0 ? 'not in the hits' : `hit #${found + 1}`}; top: ${r.structuredContent.hits.slice(0, 3).map((h) => `${h.file}:${h.lines?.join('-')}`).join(', ')}`);
  }
  sizes.sort((a, b) => a - b);
  const median = sizes.length % 2 ? (sizes[(sizes.length - 1) / 2] as number) : ((sizes[sizes.length / 2 - 1] as number) + (sizes[sizes.length / 2] as number)) / 2;
  const n = questions.length;
  const r1 = at1 / n;
  const r3 = at3 / n;
  console.log(`retrieval: ${n} questions over ${files.length} corpus files, search_context defaults (5 hits, 4096-byte answers), official MCP client`);
  console.log(`recall@1 ${(r1 * 100).toFixed(1)} % (${at1}/${n})`);
  console.log(`recall@3 ${(r3 * 100).toFixed(1)} % (${at3}/${n})  → ${verdict(r3 >= RECALL_TARGET, 'PASS', 'FAIL')} (target: ≥ ${RECALL_TARGET * 100} %)`);
  console.log(`answer bytes: median ${median}, largest ${sizes[sizes.length - 1]}  → ${verdict(median <= MEDIAN_TARGET, 'PASS', 'FAIL')} (target: median ≤ ${MEDIAN_TARGET})`);
  for (const m of misses) console.log(m);
} finally {
  await client.close();
  rmSync(root, { recursive: true, force: true });
}

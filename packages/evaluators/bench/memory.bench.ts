/**
 * The memory evaluator on a 200-file memory folder (issue 16: under a second): the in-process
 * evaluation against reading the same folder (its I/O floor), and the whole `loop-evaluate
 * memory` process (what the loop runs) against starting the same node + tsx with nothing to do.
 * Ratios are against baselines measured in the same run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { evaluatorInvocation } from '../src/command.js';
import { evaluateMemory } from '../src/memory.js';
import { readMemoryStore } from '../src/memory-store.js';
import { createSeededWords } from './words.js';

const FILES = 200;
const root = mkdtempSync(join(tmpdir(), 'mem-bench-'));
const store = join(root, 'memory');
mkdirSync(join(store, 'topics'), { recursive: true });
const words = createSeededWords(7);
const index: string[] = ['# Memory index', ''];
const questions: { query: string; answer: string }[] = [];
for (let i = 0; i < FILES; i++) {
  const path = `topics/note-${String(i).padStart(3, '0')}.md`;
  const fact = `fact-${i} is ${words.word()}-${i}`;
  // every tenth file a near-copy of the one before, so the near-duplicate pass has work to do
  const body = i % 10 === 9 ? `${words.paragraph(150, i - 1)} extra` : words.paragraph(150, i);
  writeFileSync(join(store, path), `---\nname: note ${i}\n---\n# Note ${i} ${words.word()}\n\n${body}\n\n${fact}\n`);
  index.push(`- [note ${i}](${path})`);
  if (i % 4 === 0) questions.push({ query: `fact-${i} ${words.word()}`, answer: fact });
}
writeFileSync(join(store, 'MEMORY.md'), `${index.join('\n')}\n`);
writeFileSync(`${store}.questions.json`, JSON.stringify(questions));

const { command } = evaluatorInvocation('memory', store);
const startup = command.replace(/ \S+main\.ts .*$/, ' -e 0');

const bench = new Bench({ time: 2000, warmupTime: 300, iterations: 5 });
bench
  .add('read the 200 files (I/O floor)', async () => void (await readMemoryStore(store)))
  .add('evaluateMemory, 200 files, 50 questions', async () => void (await evaluateMemory(store, { now: '2026-12-01' })))
  .add('node + tsx start, nothing to do (process floor)', () => void execFileSync('/bin/sh', ['-c', startup]))
  .add('loop-evaluate memory (the harness process)', () => void execFileSync('/bin/sh', ['-c', command]));
await bench.run();
console.table(bench.table());
const mean = (name: string) => (bench.tasks.find((t) => t.name.startsWith(name))!.result as { latency?: { mean: number } } | undefined)?.latency?.mean ?? Number.NaN;
const evalMs = mean('evaluateMemory');
const procMs = mean('loop-evaluate');
console.log(`evaluateMemory: ${evalMs.toFixed(1)} ms = ${(evalMs / mean('read the')).toFixed(1)}x reading the files; ${evalMs < 1000 ? 'under' : 'OVER'} 1 s`);
console.log(`loop-evaluate process: ${procMs.toFixed(1)} ms = ${(procMs / mean('node + tsx')).toFixed(2)}x an empty node + tsx start; ${procMs < 1000 ? 'under' : 'OVER'} 1 s`);
rmSync(root, { recursive: true, force: true });
rmSync(`${store}.questions.json`, { force: true });

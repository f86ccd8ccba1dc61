/**
 * The memory evaluator on a 200-file memory folder (issue 16: under a second): the in-process
 * evaluation against reading the same folder (its I/O floor), and the whole `loop-evaluate
 * memory` process (what the loop runs) against starting the same node + tsx with nothing to do.
 * Ratios are per cycle against baselines interleaved with them (issue 31).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatRatio, formatTime, interleave, loadLine, pairRatios, timeOf } from '@loop/internal-test-utils/bench';
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

// Interleaved (issue 31): each cycle runs every variant once; ratios are per cycle.
const result = await interleave(
  {
    read: async () => void (await readMemoryStore(store)),
    evaluate: async () => void (await evaluateMemory(store, { now: '2026-12-01' })),
    startup: () => void execFileSync('/bin/sh', ['-c', startup]),
    process: () => void execFileSync('/bin/sh', ['-c', command]),
  },
  { cycles: Number(process.env.BENCH_CYCLES ?? 10), warmup: 1 },
);
console.log(loadLine(result.load));
const evalMs = timeOf(result, 'evaluate');
const procMs = timeOf(result, 'process');
console.log(
  `read the 200 files (I/O floor): ${formatTime(timeOf(result, 'read'))}; ` +
    `node + tsx start, nothing to do (process ` +
    `floor): ${formatTime(timeOf(result, 'startup'))}`,
);
console.log(
  `evaluateMemory (200 files, 50 questions): ${formatTime(evalMs)} ` +
    `= ${formatRatio(pairRatios(result, 'evaluate', 'read'), 1)} reading the ` +
    `files, per cycle; ${evalMs.max < 1000 ? 'under' : 'OVER'} 1 s`,
);
console.log(
  `loop-evaluate memory process: ${formatTime(procMs)} ` +
    `= ${formatRatio(pairRatios(result, 'process', 'startup'))} an empty node ` +
    `+ tsx start, per cycle; ${procMs.max < 1000 ? 'under' : 'OVER'} 1 s`,
);
rmSync(root, { recursive: true, force: true });
rmSync(`${store}.questions.json`, { force: true });

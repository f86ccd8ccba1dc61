// A coordinator process for the kill-and-resume test: runs the fixture loop (baseline + K = 1
// candidate, iteration 1 gated) with its rows in a JSON-lines file; started again on the same
// files it resumes (rows found at start). Prints the evaluation queue's events as JSON lines.
//   node --import tsx --conditions=source test/coordinator.ts <redis> <queue> <root> <scratch> <rows.jsonl>
import { existsSync, readFileSync } from 'node:fs';
import { appendDurable, createFileArtifact, createLoop, createMemoryResultsLog, createRegexScorer, maxIterations, type IterationRecord } from '@loop/core';
import { createGitResetRollback } from '@loop/rollback-git';
import { createEvaluationQueue, createRemoteHarness, createRemoteWorkingCopies } from '../src/index.js';
import { writeParams } from './helpers.js';

const [redis, queueName, root, scratch, rowsPath] = process.argv.slice(2) as [string, string, string, string, string];
const initial = existsSync(rowsPath) ? readFileSync(rowsPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as IterationRecord) : [];
const memory = createMemoryResultsLog(initial);
const results = { ...memory, name: 'jsonl', path: rowsPath, append: async (r: IterationRecord) => (memory.rows.push(r), appendDurable(rowsPath, `${JSON.stringify(r)}\n`)) };
const queue = createEvaluationQueue({ redis, queue: queueName, pollMs: 100, onEvent: (e) => process.stdout.write(`${JSON.stringify(e)}\n`) });
const harness = { command: './train.sh', timeBudgetMs: 20_000, fingerprintFiles: ['train.sh'], env: { LOOP_TEST_DIR: scratch, LOOP_TEST_GATE_ITERATION: '1' } };
const common = { queue, mutable: ['params.txt'], harness, runId: 'resumed' };
const rollback = createGitResetRollback({ dir: root, branch: 'loop/resumed', paths: ['params.txt'], excludes: ['run.log'], resume: initial.length > 0 });
await rollback.start();
const loop = createLoop({
  artifact: createFileArtifact({ root, mutable: ['params.txt'], readOnly: ['train.sh'] }),
  rollback,
  results,
  proposer: writeParams,
  harness: createRemoteHarness({ ...common, root, repository: root }),
  scorer: createRegexScorer({ pattern: '^score:', direction: 'maximize' }),
  stop: maxIterations(1),
  parallel: { candidates: 1, workingCopies: createRemoteWorkingCopies({ ...common, root, readOnly: ['train.sh'], exclude: ['.git', '.loop', 'run.log'], tempDir: `${scratch}/copies` }) },
});
await loop.run();
await queue.close();
process.stdout.write(`${JSON.stringify({ type: 'done' })}\n`);

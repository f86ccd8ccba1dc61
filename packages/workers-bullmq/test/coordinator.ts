// A coordinator process for the kill-and-resume tests: runs the fixture loop with its rows in a
// JSON-lines file; started again on the same files it resumes (rows found at start). Prints the
// evaluation queue's events as JSON lines.
//   node --import tsx --conditions=source test/coordinator.ts <redis> <queue> <root> <scratch> <rows.jsonl> [mode]
// mode `write` (default): baseline + K = 1 candidate of `writeParams`, iteration 1 gated.
// mode `tpe:k0-first` / `tpe:k1-first`: baseline + one batch of K = 2 candidates of the seeded TPE
// proposer (params.txt holds x), iteration 2 gated; the batch's working copies are ready in that
// order (candidate 0 first, or candidate 1 first: a loaded machine, injected rather than timed).
import { existsSync, readFileSync } from 'node:fs';
import {
  createFileArtifact,
  createLoop,
  createMemoryResultsLog,
  createRegexScorer,
  maxIterations,
  type IterationRecord,
  type Proposer,
  type WorkingCopyProvider,
} from '@loop/core';
import { createConfigFileAdapter, createTpeProposer } from '@loop/core/proposers';
import { appendDurable } from '@loop/core/files';
import { createGitResetRollback } from '@loop/rollback-git';
import { createEvaluationQueue, createRemoteHarness, createRemoteWorkingCopies } from '../src/index.js';
import { writeParams } from './helpers.js';

const [redis, queueName, root, scratch, rowsPath, mode = 'write'] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string?,
];
const tpe = mode.startsWith('tpe:');
const candidates = tpe ? 2 : 1;
const initial = existsSync(rowsPath)
  ? readFileSync(rowsPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as IterationRecord)
  : [];
const memory = createMemoryResultsLog(initial);
const results = {
  ...memory,
  name: 'jsonl',
  path: rowsPath,
  append: async (r: IterationRecord) => (memory.rows.push(r), appendDurable(rowsPath, `${JSON.stringify(r)}\n`)),
};
const queue = createEvaluationQueue({
  redis,
  queue: queueName,
  pollMs: 100,
  onEvent: (e) => process.stdout.write(`${JSON.stringify(e)}\n`),
});
const harness = {
  command: './train.sh',
  timeBudgetMs: 20_000,
  fingerprintFiles: ['train.sh'],
  env: { LOOP_TEST_DIR: scratch, LOOP_TEST_GATE_ITERATION: tpe ? '2' : '1' },
};
const common = { queue, mutable: ['params.txt'], harness, runId: 'resumed' };
const rollback = createGitResetRollback({
  dir: root,
  branch: 'loop/resumed',
  paths: ['params.txt'],
  excludes: ['run.log'],
  resume: initial.length > 0,
});
await rollback.start();
const tpeProposer = createTpeProposer({
  config: createConfigFileAdapter({
    dir: root,
    file: 'params.txt',
    codec: { parse: (t) => ({ x: Number(t) }), stringify: (c) => `${String(c.x)}\n` },
  }),
  space: { x: { min: 1, max: 100 } },
  seed: 5,
});
// Candidate `first`'s working copy is ready before the other's is made (a loaded machine's order).
// The engine still calls the proposers in candidate order (candidate 0's first), whatever the order
// the copies were ready in.
const first = mode === 'tpe:k1-first' ? 1 : 0;
let firstMade: () => void = () => undefined;
const made = new Promise<void>((resolve) => (firstMade = resolve));
const proposer: Proposer = !tpe ? writeParams : tpeProposer;
const copies = createRemoteWorkingCopies({
  ...common,
  root,
  readOnly: ['train.sh'],
  exclude: ['.git', '.loop', 'run.log'],
  tempDir: `${scratch}/copies`,
});
const workingCopies: WorkingCopyProvider = {
  ...copies,
  create: async (iteration, k) => {
    if (tpe && k !== first) await made;
    const copy = await copies.create(iteration, k);
    if (k === first) firstMade();
    return copy;
  },
};
const loop = createLoop({
  artifact: createFileArtifact({ root, mutable: ['params.txt'], readOnly: ['train.sh'] }),
  rollback,
  results,
  proposer,
  harness: createRemoteHarness({ ...common, root, repository: root }),
  scorer: createRegexScorer({ pattern: '^score:', direction: 'maximize' }),
  stop: maxIterations(candidates),
  parallel: { candidates, workingCopies },
});
await loop.run();
await queue.close();
process.stdout.write(`${JSON.stringify({ type: 'done' })}\n`);

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock, type IterationRecord } from '@loop/core';
import { writeJsonAtomic } from '@loop/core/files';
import { describeResultsLog, describeStateStore } from '@loop/internal-test-utils';
import { createPassResultsLog, createPassStateStore } from './index.js';
import { AR3_DIMENSIONS, resultsHeader } from './results-tsv.js';

// The shared ResultsLog and StateStore rules (@loop/testing) on seed 002's results.tsv (with its
// full-precision twin results.jsonl) and the pass's .aid/pipeline/state.json.
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loop-autoresearch-stores-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
};

/** The baseline's snapshot cell: row 0 reads its candidate id back from it. */
const snapshotOf = (r: IterationRecord) => (r.status === 'baseline' ? 'baseline-0' : '-');

describeResultsLog('autoresearch results.tsv (function pass)', async () => {
  const { dir, cleanup } = await tempDir();
  const path = join(dir, 'results.tsv');
  const header = resultsHeader('function');
  return {
    open: () => createPassResultsLog({ path, header, dimensions: header.slice(3, -3), clock: systemClock, snapshotOf }),
    // The twin keeps what the engine reads back; a row's error, data and changed files are not kept.
    kept: (r) => ({
      iteration: r.iteration,
      candidateId: r.status === 'baseline' ? snapshotOf(r) : r.candidateId,
      score: r.score,
      status: r.status,
      description: r.description,
      ...(r.note ? { note: r.note } : {}),
      ...(r.label ? { label: r.label } : {}),
    }),
    corrupt: async () => {
      const lines = (await readFile(path, 'utf8')).split('\n');
      lines[1] = '1\tnot a row';
      await writeFile(path, lines.join('\n'));
    },
    cleanup,
  };
});

describeResultsLog('autoresearch results.tsv (acceptance rounds)', async () => {
  const { dir, cleanup } = await tempDir();
  const path = join(dir, 'results.tsv');
  return {
    open: () =>
      createPassResultsLog({
        path,
        header: resultsHeader('acceptance'),
        dimensions: AR3_DIMENSIONS,
        clock: systemClock,
        snapshotOf: () => '-',
        rounds: true,
      }),
    // A round's score is its pass_rate column.
    asWritten: (r) => ({ ...r, dimensions: { ...(r.score === null ? {} : { pass_rate: r.score }), why_alignment: 8 } }),
    // AR-3 has no baseline: the engine's row 0 is not written, reading gives a fixed one after round 1.
    unstoredBaseline: true,
    kept: (r) =>
      r.status === 'baseline'
        ? { iteration: 0, candidateId: '', score: 0, status: 'baseline', description: 'AR-3 has no baseline' }
        : {
            iteration: r.iteration,
            candidateId: r.candidateId,
            score: r.score,
            status: r.status,
            description: r.description,
            ...(r.note ? { note: r.note } : {}),
            ...(r.label ? { label: r.label } : {}),
            ...(r.dimensions ? { dimensions: r.dimensions } : {}),
          },
    corrupt: async () => {
      const lines = (await readFile(path, 'utf8')).split('\n');
      lines[1] = 'ar3-r1\tnot a row';
      await writeFile(path, lines.join('\n'));
    },
    cleanup,
  };
});

describeStateStore('autoresearch state.json (engine state under autoresearch.<mode>.engine)', async () => {
  const { dir, cleanup } = await tempDir();
  const options = (path: string) => ({
    path,
    workspace: dir,
    mode: 'function',
    taskId: 'task-1',
    resumed: true,
    write: writeJsonAtomic,
    resultsPath: join(dir, 'results.tsv'),
  });
  return {
    open: () => createPassStateStore(options(join(dir, '.aid', 'pipeline', 'state.json'))),
    unwritable: async () => {
      await writeFile(join(dir, 'a-file'), '');
      const store = createPassStateStore(options(join(dir, 'a-file', 'state.json')));
      store.finish({ entry: {}, history: {}, files: [], result: null });
      return store;
    },
    // Seed 002 checks only the final state.json write; results.tsv and its twin hold the record.
    bestEffortWhileRunning: true,
    cleanup,
  };
});

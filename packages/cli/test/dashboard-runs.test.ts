// loop dashboard's runs without a server: which folders are runs, what a run's view says (running
// while the workspace lock is held, interrupted, finished with the stop reason, a malformed
// results.tsv) and the curves of a run (dashboard-fixture.ts builds the folder).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { acquireLock } from '@loop/core/files';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverRuns } from '../src/dashboard/discover.js';
import { readRunView } from '../src/dashboard/run-view.js';
import { lockPath } from '../src/workspace-status.js';
import { createRunsRoot, row, workspace } from './dashboard-fixture.js';

let root: string;

beforeAll(() => {
  root = createRunsRoot();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the runs of a folder', () => {
  it(
    'finds auto-iterate workspaces (.loop/ or results.tsv) and autoresearch ' +
      'tasks down to two levels, not node_modules or deeper folders',
    async () => {
      const runs = await discoverRuns(root);
      expect(runs.map((r) => r.id)).toEqual([
        'corrupt/results.tsv',
        'finished/results.tsv',
        'group/interrupted/results.tsv',
        'pass/.aid/pipeline/autoresearch/task-1/results.tsv',
      ]);
      expect(runs.map((r) => r.label)).toEqual(['corrupt', 'finished', 'group/interrupted', 'pass (task-1)']);
    },
  );

  it(
    'a run is finished with its stop reason, interrupted when state.json ' +
      'says running but nobody holds the lock, running while the lock is held ' +
      "(auto-iterate's and an autoresearch pass's)",
    async () => {
      const runs = await discoverRuns(root);
      const finished = await readRunView(runs[1]!);
      expect(finished).toMatchObject({
        phase: 'stopped',
        stopReason: 'max-iterations',
        stopMessage: 'reached 2 iterations',
        best: 9,
        direction: 'minimize',
        form: 'auto-iterate',
      });
      expect(finished.counts).toMatchObject({ experiments: 2, keep: 1, discard: 1 });
      expect(finished.spec).toBeDefined();
      const interrupted = runs[2]!;
      expect((await readRunView(interrupted)).phase).toBe('interrupted');
      const lock = await acquireLock({ path: lockPath(interrupted.dir) });
      try {
        expect(await readRunView(interrupted)).toMatchObject({ phase: 'running', locked: true });
      } finally {
        await lock.release();
      }
      const pass = await readRunView(runs[3]!);
      expect(pass).toMatchObject({
        form: 'autoresearch',
        metric: 'composite',
        direction: 'maximize',
        best: 7,
        phase: 'idle',
      });
      // An autoresearch pass holds <task folder>/pass (run-pass.ts).
      const passLock = await acquireLock({ path: runs[3]!.lock });
      try {
        expect(runs[3]!.lock).toBe(join(root, 'pass', '.aid', 'pipeline', 'autoresearch', 'task-1', 'pass'));
        expect((await readRunView(runs[3]!)).phase).toBe('running');
      } finally {
        await passLock.release();
      }
    },
  );

  it('a malformed results.tsv is shown as the problem, naming the file, with no plot', async () => {
    const view = await readRunView((await discoverRuns(root))[0]!);
    expect(view.problem).toMatch(/corrupt\/results\.tsv:1: not a results\.tsv of a known form/);
    expect(view.spec).toBeUndefined();
  });
});

describe('the curves of a run (issue 27)', () => {
  it(
    'a run whose rows carry intermediate reports gets the curves plot (kept, ' +
      'discarded, pruned); one without gets none',
    async () => {
      const dir = workspace(
        root,
        'curves',
        [
          row(0, 3, 'baseline', 'baseline'),
          row(1, 3.4, 'reverted', 'lr up (pruned at step 200: 3.4 vs incumbent 3.1)'),
        ],
        { status: 'stopped', direction: 'minimize' },
      );
      const reports = (values: number[]) => values.map((value, i) => ({ step: (i + 1) * 100, value }));
      writeFileSync(
        join(dir, '.loop', 'records.jsonl'),
        [
          JSON.stringify({ iteration: 0, data: { reports: reports([3.5, 3.1, 3]) } }),
          JSON.stringify({
            iteration: 1,
            data: {
              reports: reports([3.6, 3.4]),
              pruned: { step: 200, value: 3.4, reason: 'r', pruner: 'incumbent-curve' },
            },
          }),
        ].join('\n'),
      );
      const runs = await discoverRuns(root);
      const view = await readRunView(runs.find((r) => r.dir === dir)!);
      const values =
        (view.curves?.data as { name: string; values?: { kind: string }[] }[] | undefined)?.find(
          (d) => d.name === 'points',
        )?.values ?? [];
      expect(new Set(values.map((v) => v.kind))).toEqual(new Set(['kept', 'pruned']));
      const plain = await readRunView(runs.find((r) => r.dir.endsWith('finished'))!);
      expect(plain.curves).toBeUndefined();
      rmSync(dir, { recursive: true, force: true });
    },
  );
});

// Issue 26: an outside host drives auto-iterate with ask/tell on a real git workspace. What it
// leaves (results.tsv, the run branch, refs/loop/discarded/*) is what run() leaves for the same
// edits made by a function proposer, and misuse on the real workspace is a coded error that
// touches nothing.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAutoIterate } from '@loop/auto-iterate';
import { createFunctionProposer } from '@loop/core';
import { afterAll, describe, expect, it } from 'vitest';
import { edit } from '../src/edits.js';
import { hostLoop, hostOptions } from '../src/host.js';
import { createWorkspace } from '../src/workspace.js';
import { git, leftLocks, rowsOf, runShape } from './git.js';

const root = mkdtempSync(join(tmpdir(), 'loop-agent-host-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let count = 0;
const workspace = () => {
  const dir = join(root, `ws-${(count += 1)}`);
  mkdirSync(dir);
  return createWorkspace(dir);
};
const quiet = { onRow: () => {} };

describe('an outside host (ask/tell) and run() of the same edits leave the same run', () => {
  it(
    '20 iterations: the same rows, kept trees, branch length and tree, and ' + 'discarded refs with the same trees',
    async () => {
      const hosted = workspace();
      const summary = await hostLoop(hosted, 20, (iteration) => edit(hosted, iteration), quiet);
      const ran = workspace();
      const proposer = createFunctionProposer('same edits', ({ iteration }) => ({ description: edit(ran, iteration) }));
      const runSummary = await createAutoIterate(hostOptions(ran, 20, { proposer })).run();

      const host = runShape(hosted);
      expect(host).toEqual(runShape(ran));
      expect(host.rows).toHaveLength(21);
      // The sequence covers every kind of row, so the comparison is not vacuous.
      expect(new Set(rowsOf(hosted).map((r) => r[2]))).toEqual(new Set(['keep', 'discard', 'crash']));
      expect(host.rows.filter((r) => r.includes('not evaluated'))).toHaveLength(4);
      expect(host.keptTrees.length).toBe(host.branchCommits); // baseline + each keep: one commit each
      expect(Object.keys(host.discarded).length).toBeGreaterThanOrEqual(8);
      expect({ best: summary.best, iterations: summary.iterations, stop: summary.stop.reason }).toEqual({
        best: runSummary.best,
        iterations: runSummary.iterations,
        stop: runSummary.stop.reason,
      });
      expect(summary).toMatchObject({ best: 0, iterations: 20 });
      expect(JSON.parse(readFileSync(join(hosted, 'params.json'), 'utf8'))).toEqual({ x: 13 });
      for (const dir of [hosted, ran]) {
        expect(git(dir, 'status', '--porcelain')).toBe('');
        expect(leftLocks(dir)).toEqual([]);
      }
    },
    240_000,
  ); // two 20-iteration runs, 40 harness processes, on a loaded machine
});

describe('misuse on a real workspace is a coded error that touches nothing', () => {
  it(
    'a second host on the same workspace is LOCK_HELD; the first goes on, ' +
      'and after it stops the workspace opens again',
    async () => {
      const dir = workspace();
      const first = await createAutoIterate(hostOptions(dir, 2)).open();
      const trial = await first.ask();
      const before = { rows: rowsOf(dir), head: git(dir, 'rev-parse', 'HEAD') };
      await expect(createAutoIterate(hostOptions(dir, 2, { recovery: { resume: true } })).open()).rejects.toMatchObject(
        {
          code: 'LOCK_HELD',
        },
      );
      expect({ rows: rowsOf(dir), head: git(dir, 'rev-parse', 'HEAD') }).toEqual(before);
      expect((await first.tell(trial, { description: edit(dir, trial.iteration) })).records).toMatchObject([
        { iteration: 1, status: 'kept' },
      ]);
      const t2 = await first.ask();
      const out = await first.tell(t2, { description: edit(dir, t2.iteration) });
      expect(out.stopped?.stop.reason).toBe('max-iterations');
      expect(leftLocks(dir)).toEqual([]);
      // The lock went with the stop: another host opens the workspace (and finds the run finished).
      const again = await createAutoIterate(hostOptions(dir, 2, { recovery: { resume: true } })).open();
      await expect(again.ask()).rejects.toMatchObject({ code: 'LOOP_STOPPED' });
      expect(rowsOf(dir)).toHaveLength(3);
    },
  );

  it('tell after the loop stopped is LOOP_STOPPED: no row, the branch and tree unchanged', async () => {
    const dir = workspace();
    const loop = await createAutoIterate(hostOptions(dir, 1)).open();
    const trial = await loop.ask();
    await loop.tell(trial, { description: edit(dir, trial.iteration) });
    const before = { rows: rowsOf(dir), head: git(dir, 'rev-parse', 'HEAD'), refs: git(dir, 'for-each-ref') };
    writeFileSync(join(dir, 'params.json'), '{"x": 12}\n');
    await expect(loop.tell(trial, { description: 'late' })).rejects.toMatchObject({ code: 'LOOP_STOPPED' });
    await expect(loop.ask()).rejects.toMatchObject({ code: 'LOOP_STOPPED' });
    expect({ rows: rowsOf(dir), head: git(dir, 'rev-parse', 'HEAD'), refs: git(dir, 'for-each-ref') }).toEqual(before);
    expect(git(dir, 'status', '--porcelain')).toBe('M params.json'); // the late edit is the user's, left alone
  });

  it(
    'stop() with an open trial rolls the edit back without a row; an edit ' +
      'outside the target is EDIT_OUTSIDE_ARTIFACT',
    async () => {
      const dir = workspace();
      const loop = await createAutoIterate(hostOptions(dir, 5)).open();
      const trial = await loop.ask();
      writeFileSync(join(dir, 'score.mjs'), 'console.log("score: 0")\n');
      await expect(loop.tell(trial, { description: 'rewrote the harness' })).rejects.toMatchObject({
        code: 'EDIT_OUTSIDE_ARTIFACT',
      });
      expect(rowsOf(dir)).toHaveLength(1);
      git(dir, 'checkout', '--', 'score.mjs');
      edit(dir, trial.iteration);
      const summary = await loop.stop('host is done');
      expect(summary).toMatchObject({ stop: { reason: 'host', message: 'host is done' }, best: 13 });
      expect(rowsOf(dir)).toHaveLength(1);
      expect(git(dir, 'status', '--porcelain')).toBe('');
      expect(readFileSync(join(dir, 'params.json'), 'utf8')).toBe('{"x":0}\n');
      expect(leftLocks(dir)).toEqual([]);
    },
  );
});

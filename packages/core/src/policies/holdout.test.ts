import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '@loop/internal-test-utils';
import { createLoop } from '../engine/create-loop.js';
import { createFunctionHarness } from '../harness/function-harness.js';
import { createHoldout } from './holdout.js';
import { holdoutStateDir, readHoldoutUses } from './holdout-store.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createFunctionProposer } from '../contracts/proposer.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { maxIterations } from '../contracts/stop-policy.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-holdout-'));
  writeFileSync(join(dir, 'test.txt'), 'sealed\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A proposer that "memorises the validation set": each edit adds 1 to the value; the visible score
 * (100 - v) always improves, the holdout's improves until v = 3 and then gets worse (overfitting).
 */
function overfitting(
  gate?: { budget: number; margin?: number },
  iterations = 6,
  notices: string[] = [],
  crash = false,
) {
  const artifact = createMemoryArtifact(0);
  const clock = createManualClock(0);
  let holdoutRuns = 0;
  const holdoutOf = (v: number) => (v <= 3 ? 500 - 10 * v : 470 + (v - 3) * 20);
  const holdout = createHoldout({
    harness: createFunctionHarness('holdout', () => {
      holdoutRuns++;
      if (crash) throw new Error('ENOENT: test-names.txt');
      return holdoutOf(artifact.get());
    }),
    scorer: createValueScorer('minimize'),
    direction: 'minimize',
    command: 'fn',
    files: [join(dir, 'test.txt')],
    stateDir: join(dir, 'state'),
    run: 'r1',
    clock,
    onNotice: (m) => notices.push(m),
    ...(gate ? { gate } : {}),
  });
  const results = createMemoryResultsLog();
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    results,
    harness: createFunctionHarness('visible', () => 100 - artifact.get()),
    scorer: createValueScorer('minimize'),
    proposer: createFunctionProposer(
      'memorise',
      () => (artifact.set(artifact.get() + 1), { description: `memorise ${artifact.get()}` }),
    ),
    stop: maxIterations(iterations),
    keep: { guards: holdout.guard ? [holdout.guard] : [] },
    onStop: holdout.onStop,
    clock,
  });
  return { loop, holdout, results, runs: () => holdoutRuns };
}

describe('a sealed holdout (issue 33)', () => {
  it(
    'without a gate, only the final sealed score of the best state is taken ' +
      '(once), and the gap to the visible score is recorded',
    async () => {
      const { loop, holdout, runs } = overfitting(undefined, 6);
      await holdout.start();
      const summary = await loop.run();
      expect(summary.best).toBe(94);
      expect(runs()).toBe(1);
      const uses = await readHoldoutUses(join(dir, 'state'));
      expect(uses).toEqual([expect.objectContaining({ use: 1, kind: 'final', iteration: 6, visible: 94, score: 530 })]);
    },
  );

  it(
    'the gate blocks a keep whose holdout score is worse than the ' +
      "incumbent's by more than the margin; the visible score alone would keep " +
      'it',
    async () => {
      const { loop, holdout, results } = overfitting({ budget: 20 }, 6);
      await holdout.start();
      const summary = await loop.run();
      expect(summary.best).toBe(97); // v = 3: the best the holdout allows
      const rows = await results.read();
      expect(rows.map((r) => r.status)).toEqual([
        'baseline',
        'kept',
        'kept',
        'kept',
        'reverted',
        'reverted',
        'reverted',
      ]);
      expect(rows[4]?.description).toMatch(/kept back by the sealed holdout \(gate use 5 of 20\)/);
      // The rows the proposer reads never carry a holdout score.
      expect(JSON.stringify(rows)).not.toMatch(/\b(4[5-9]0|5[0-9]0)\b/);
    },
  );

  it(
    'the gate is evaluated exactly its budget of times, each use counted; ' +
      'then it says so once and keeps are no longer gated',
    async () => {
      const notices: string[] = [];
      const { loop, holdout, runs } = overfitting({ budget: 3 }, 6, notices);
      await holdout.start();
      const summary = await loop.run();
      expect(summary.best).toBe(94); // ungated after the budget: the overfit keeps go through
      expect(runs()).toBe(3 + 1); // three gate uses and the final score
      const uses = await readHoldoutUses(join(dir, 'state'), 'r1');
      expect(uses.map((u) => [u.use, u.kind, u.gateUse])).toEqual([
        [1, 'gate-incumbent', 1],
        [2, 'gate', 2],
        [3, 'gate', 3],
        [4, 'final', undefined],
      ]);
      expect(notices.filter((n) => /budget of 3 uses is spent/.test(n))).toHaveLength(1);
      // the lines the user's terminal shows hold no holdout score
      expect(notices.join('\n')).not.toMatch(/\b(4[5-9]0|5[0-9]0)\b/);
    },
  );

  it('a final holdout run that gives no score is recorded and said so, not announced as a score written', async () => {
    const notices: string[] = [];
    const { loop, holdout } = overfitting(undefined, 2, notices, true);
    await holdout.start();
    await loop.run();
    const uses = await readHoldoutUses(join(dir, 'state'));
    expect(uses).toEqual([expect.objectContaining({ use: 1, kind: 'final' })]);
    expect(uses[0]!.score).toBeUndefined();
    expect(notices.join('\n')).toMatch(/the final holdout run of the best state gave no score \(harness-error; use 1/);
    expect(notices.join('\n')).not.toMatch(/final sealed score of the best state written/);
  });

  it('a change to a holdout file after the start is HARNESS_TAMPERED at the next use', async () => {
    const { holdout } = overfitting(undefined, 1);
    await holdout.start();
    writeFileSync(join(dir, 'test.txt'), 'edited\n');
    await expect(holdout.evaluate('on-demand', { iteration: 0 })).rejects.toMatchObject({ code: 'HARNESS_TAMPERED' });
    expect(readFileSync(join(dir, 'test.txt'), 'utf8')).toBe('edited\n');
  });

  it(
    'the default state folder is per workspace under XDG_STATE_HOME (or ' + '~/.local/state), outside the workspace',
    () => {
      expect(holdoutStateDir('/w/ml', { XDG_STATE_HOME: '/s' })).toMatch(/^\/s\/loop\/holdout\/ml-[0-9a-f]{12}$/);
      expect(holdoutStateDir('/w/ml', { HOME: '/h' })).toMatch(/^\/h\/\.local\/state\/loop\/holdout\/ml-[0-9a-f]{12}$/);
      expect(holdoutStateDir('/w/ml', { HOME: '/h' })).not.toBe(holdoutStateDir('/v/ml', { HOME: '/h' }));
    },
  );
});

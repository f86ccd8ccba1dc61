import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCounterProposer, createFakeHarness, type FakeOutcome } from '@loop/internal-test-utils';
import { ConfigError } from '../contracts/errors.js';
import { minDelta } from '../contracts/keep-policy.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createFunctionProposer } from '../contracts/proposer.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { createLoop } from './create-loop.js';
import type { LoopOptions } from './options.js';
import { normalizeLoopOptions } from './options-schema.js';

function setup(scores: FakeOutcome[], extra: Partial<LoopOptions> = {}) {
  const artifact = createMemoryArtifact(0);
  const results = createMemoryResultsLog();
  const seeds: number[] = [];
  let i = 0;
  const harness = createFakeHarness({
    score: (c) => (seeds.push(c.seed ?? -1), scores[Math.min(i++, scores.length - 1)]!),
  });
  const options: LoopOptions = {
    artifact,
    rollback: createMemoryRollback(artifact),
    results,
    harness,
    proposer: createCounterProposer(artifact),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(scores.length - 1),
    ...extra,
  };
  return { options, results, seeds };
}

const configError = (f: () => unknown): ConfigError => {
  try {
    f();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('LoopOptions groups (files, run, keep, recovery)', () => {
  it('files: statePath, decisionsLogPath and lockPath are written where the files group says', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loop-grouped-'));
    try {
      const { options } = setup([10, 9], {
        files: {
          statePath: join(dir, 'state.json'),
          decisionsLogPath: join(dir, 'decisions.jsonl'),
          lockPath: join(dir, 'workspace'),
        },
      });
      const loop = createLoop(options);
      let lockHeld = false;
      loop.on('baseline', () => void stat(join(dir, 'workspace.lock')).then(() => (lockHeld = true)));
      await loop.run();
      expect(JSON.parse(await readFile(join(dir, 'state.json'), 'utf8'))).toMatchObject({ best: 9 });
      expect((await readFile(join(dir, 'decisions.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(2);
      expect(lockHeld).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('run: baselineRepeats and seedForRepeat set the baseline samples and their seeds', async () => {
    const { options, results, seeds } = setup([10, 10, 10, 9], {
      stop: maxIterations(1),
      run: { baselineRepeats: 3, seedForRepeat: (r) => 100 + r },
    });
    await createLoop(options).run();
    expect(seeds).toEqual([100, 101, 102, 100]);
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept']);
  });

  it('keep: policy, guards and skipDuplicates decide what may be kept', async () => {
    const values = [1, 1, 2, 3];
    const { options, results } = setup([10, 9.5, 8], {
      proposer: createFunctionProposer('listed', ({ iteration }) => {
        artifact.set(values[iteration - 1]!);
        return { description: `value ${values[iteration - 1]}` };
      }),
      stop: maxIterations(4),
      keep: {
        policy: minDelta(1),
        guards: [
          {
            name: 'no-three',
            beforeRun: ({ iteration }) => (iteration === 4 ? { action: 'reject', note: 'not 3' } : undefined),
          },
        ],
        skipDuplicates: true,
      },
    });
    const artifact = options.artifact as ReturnType<typeof createMemoryArtifact>;
    await createLoop(options).run();
    // 9.5 is within minDelta(1) of 10; the same value again is not evaluated; 8 is kept; the guard rejects the last.
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'reverted', 'reverted', 'kept', 'rejected']);
    expect(results.rows[2]?.description).toMatch(/duplicate of iteration 1/);
  });

  it('recovery: maxProposerFailures and maxRepairAttempts come from the recovery group', async () => {
    const { options } = setup([10], {
      proposer: createFunctionProposer('flaky', () => {
        throw new Error('agent API unavailable');
      }),
      stop: undefined,
      recovery: { maxProposerFailures: 2, maxRepairAttempts: 1 },
    });
    const summary = await createLoop(options).run();
    expect(summary.stop.reason).toBe('proposer-failing');
    expect(summary.counts.crash).toBe(2);
  });
});

describe('deprecated flat LoopOptions names', () => {
  it('a flat name still works for one version: it is moved into its group before the engine reads it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loop-flat-'));
    try {
      const { options, results, seeds } = setup([10, 10, 9.5, 8], {
        stop: maxIterations(2),
        keepPolicy: minDelta(1),
        baselineRepeats: 2,
        seed: 7,
        statePath: join(dir, 'state.json'),
        maxProposerFailures: 3,
      });
      await createLoop(options).run();
      expect(seeds).toEqual([7, 7, 7, 7]);
      expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'reverted', 'kept']);
      expect(JSON.parse(await readFile(join(dir, 'state.json'), 'utf8'))).toMatchObject({ best: 8 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('normalizeLoopOptions moves every flat name to its group and leaves no flat name behind', () => {
    const guard = { name: 'g' };
    const detector = { name: 'd', isSeedOnlyChange: () => false };
    const seedForRepeat = (r: number) => r;
    const policy = minDelta(1);
    const { options } = setup([1], {
      keepPolicy: policy,
      guards: [guard],
      seedOnlyDetector: detector,
      skipDuplicates: true,
      statePath: 's.json',
      lockPath: 'lock',
      decisionsLogPath: 'd.jsonl',
      baselineRepeats: 2,
      seedForRepeat,
      seed: 3,
      maxRepairAttempts: 1,
      maxProposerFailures: 4,
    });
    const grouped = normalizeLoopOptions(options);
    expect(grouped.keep).toEqual({ policy, guards: [guard], seedOnlyDetector: detector, skipDuplicates: true });
    expect(grouped.files).toEqual({ statePath: 's.json', lockPath: 'lock', decisionsLogPath: 'd.jsonl' });
    expect(grouped.run).toEqual({ baselineRepeats: 2, seedForRepeat, seed: 3 });
    expect(grouped.recovery).toEqual({ maxRepairAttempts: 1, maxProposerFailures: 4 });
    expect(Object.keys(grouped)).not.toContain('keepPolicy');
    expect(Object.keys(grouped)).not.toContain('statePath');
  });

  it('a flat name and its grouped place given at once is CONFIG_INVALID naming both', () => {
    const { options } = setup([1], { keepPolicy: minDelta(1), keep: { policy: minDelta(2) } });
    const error = configError(() => createLoop(options));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(/keep\.policy/);
    expect(error.message).toMatch(/keepPolicy \(deprecated\)/);
    expect(error.issues.map((i) => i.path)).toEqual(['keep.policy']);
  });

  it('an invalid value given under a flat name is reported under that flat name', () => {
    const { options } = setup([1], { maxRepairAttempts: -1, run: { baselineRepeats: 0 } });
    const error = configError(() => createLoop(options));
    expect(error.issues.map((i) => i.path).sort()).toEqual(['maxRepairAttempts', 'run.baselineRepeats']);
  });
});

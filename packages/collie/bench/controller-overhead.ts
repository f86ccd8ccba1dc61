// Bench part 2 (see collie.bench.ts): the controller's overhead over one harness run of the trigger.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createCommandHarness } from '@loop/core';
import { interleave, pairRatios, samplesOf, spread, timeOf } from '@loop/internal-test-utils/bench';
import { createAutoiter, createScriptedAgent, type AutoiterStepOutcome } from '../src/index.js';
import { temp } from './temp-dirs.js';

/** The trigger of the controller runs (a constant scalar: SC3 stops the run after iteration 2). */
export const TRIGGER = 'echo "score: 1"';

// ---------------------------------------------------------------- 2. controller overhead

export const stageOf = (o: AutoiterStepOutcome): string => (o.kind === 'stage' ? o.stage : o.kind);
export const ITER_STAGES = [
  'stage1',
  'stage2',
  'stage3',
  'stage4a',
  'stage4b',
  'stage5.0',
  'stage5.1',
  'stage5.2',
  'stage5.3',
  'stage6',
];

export async function measureController(runs: number) {
  const byStage = new Map<string, number[]>();
  /** Per measured run: its iterations and the ms of its iteration steps. */
  const perRun: { iterations: number; iterMs: number; steps: number }[] = [];
  let iterations = 0;
  let stepsInIterations = 0;
  let lastOutcome: AutoiterStepOutcome | undefined;
  let warm = 0;

  const autoiterRun = async () => {
    const root = temp('collie-bench-ctl-');
    mkdirSync(join(root, 'project'));
    const measured = (warm += 1) > 1; // the first run warms up
    const agent = createScriptedAgent(
      { discovery: ['1. sh test.sh (shell, 5): runs the suite'], observe: ['NO ISSUES'] },
      { repeatLast: true },
    );
    const a = createAutoiter({
      projectId: 'bench',
      sessionId: 'bench',
      projectDir: join(root, 'project'),
      task: 'benchmark the controller',
      files: { stateRoot: join(root, 'collie') },
      stop: { maxIterations: 10 },
      agent,
      asker: {
        name: 'fixed',
        ask: () => ({ Q1: TRIGGER, Q2: 'scalar_threshold 100', Q3: 'optimization', Q4: 'kind_aware', Q5: 'yes' }),
      },
      env: {},
      output: () => {},
      notifier: { name: 'none', notify: () => {} },
      escalate: () => {},
    });
    const seen = new Set<number>();
    let iterMs = 0;
    let steps = 0;
    for (let step = 0; step < 100; step += 1) {
      const t0 = performance.now();
      const outcome = await a.step();
      const ms = performance.now() - t0;
      lastOutcome = outcome;
      if (measured) {
        const key = stageOf(outcome);
        byStage.set(key, [...(byStage.get(key) ?? []), ms]);
        if (outcome.kind === 'stage') {
          seen.add(outcome.iter);
          stepsInIterations += 1;
          steps += 1;
        }
        if (ITER_STAGES.includes(key)) iterMs += ms;
      }
      if (outcome.kind === 'done' || outcome.kind === 'nested-refused') break;
    }
    if (measured) {
      iterations += seen.size;
      perRun.push({ iterations: seen.size, iterMs, steps });
    }
    rmSync(root, { recursive: true, force: true });
  };

  // Baseline: the same trigger through core's command harness, with the options collie passes it.
  const base = temp('collie-bench-harness-');
  mkdirSync(join(base, 'project'));
  let n = 0;
  const harnessRun = async () => {
    n += 1;
    const harness = createCommandHarness({
      command: TRIGGER,
      cwd: join(base, 'project'),
      logFile: join(base, `raw-${n}.log`),
      timeBudgetMs: 1_800_000,
      killTimeoutMs: 1_800_000,
      graceMs: 5000,
      env: { COLLIE_AUTOITER_ACTIVE: '1' },
      pidFile: join(base, 'trigger.pid'),
    });
    const record = await harness.run({ iteration: 1, signal: new AbortController().signal });
    if (record.exitCode !== 0) throw new Error(`trigger exit ${record.exitCode}`);
  };
  // Interleaved (issue 31): each cycle runs one whole autoiter run and one harness run.
  const result = await interleave(
    { 'autoiter run': autoiterRun, 'command harness': harnessRun },
    { cycles: runs, warmup: 1 },
  );
  rmSync(base, { recursive: true, force: true });
  if (lastOutcome?.kind !== 'done') throw new Error(`the run did not finish: ${JSON.stringify(lastOutcome)}`);
  const h = samplesOf(result, 'command harness');
  const perCycle = (f: (r: (typeof perRun)[number], h: number) => number) => spread(perRun.map((r, i) => f(r, h[i]!)));
  return {
    result,
    harness: timeOf(result, 'command harness'),
    ratios: {
      run: pairRatios(result, 'autoiter run', 'command harness'),
      iteration: perCycle((r, hm) => r.iterMs / r.iterations / hm),
      step: perCycle((r, hm) => r.iterMs / r.steps / hm),
      machine: perCycle((r, hm) => (r.iterMs / r.iterations - 2 * hm) / hm),
    },
    byStage,
    iterations,
    stepsInIterations,
    runs,
    status: lastOutcome.status,
  };
}

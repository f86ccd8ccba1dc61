import { describe, expect, it } from 'vitest';
import { createLoop } from '../../engine/create-loop.js';
import { createFunctionHarness } from '../../harness/function-harness.js';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import type { KeepPolicy } from '../../contracts/keep-policy.js';
import { strictImprovement } from '../../contracts/keep-policy.js';
import { recordedViolations, withConstraints } from '../../policies/constrained-keep.js';
import { createMemoryArtifact, createMemoryRollback } from '../../artifacts/memory-artifact.js';
import { totalViolation } from '../../policies/pareto-math.js';
import { createValueScorer } from '../../scoring/regex-scorer.js';
import { maxIterations } from '../../contracts/stop-policy.js';
import { createMemoryConfigAdapter } from './config-adapter.js';
import type { TpeParameter } from './space.js';
import { createTpeProposer } from './tpe-proposer.js';

type Config = Record<string, unknown>;
const space: Record<string, TpeParameter> = { x: { min: 0, max: 1 }, y: { min: 0, max: 1 } };
// The unconstrained optimum (0.9, 0.9) lies in the infeasible region x + y > 1.2.
const f = (c: Config) => ((c.x as number) - 0.9) ** 2 + ((c.y as number) - 0.9) ** 2;
const g = (c: Config) => (c.x as number) + (c.y as number) - 1.2;
const constraints = (r: IterationRecord) => (r.data?.metrics?.g === undefined ? undefined : [r.data.metrics.g]);

/** A blocking constraint in the test's keep policy: an infeasible candidate is never kept. */
function blocking(inner: KeepPolicy): KeepPolicy {
  return {
    name: 'blocking',
    decide: (input) => {
      const v = input.candidateData?.metrics?.g;
      if (v === undefined || v > 0) return { keep: false, reason: `violates g <= 0 by ${v}` };
      return inner.decide(input);
    },
  };
}

async function run(seed: number, modelled: boolean | 'core', surrogate: 'gp' | 'parzen') {
  const artifact = createMemoryArtifact<Config>({ x: 0.2, y: 0.2 });
  const evaluated: Config[] = [];
  const kept: Config[] = [];
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer: createTpeProposer({
      config: createMemoryConfigAdapter(artifact),
      space,
      seed,
      surrogate,
      ...(modelled === 'core' ? { constraints: recordedViolations } : modelled ? { constraints } : {}),
    }),
    harness: createFunctionHarness('f', () => {
      const c = artifact.get();
      evaluated.push({ ...c });
      return { value: f(c), data: { metrics: { g: g(c) } } };
    }),
    scorer: createValueScorer('minimize'),
    keep: {
      policy: modelled === 'core' ? withConstraints(strictImprovement(), ['g <= 0']) : blocking(strictImprovement()),
    },
    stop: maxIterations(40),
  });
  loop.on('kept', () => kept.push({ ...artifact.get() }));
  await loop.run();
  const late = evaluated.slice(20);
  return { infeasibleLate: late.filter((c) => g(c) > 0).length, kept, final: artifact.get() };
}

describe('TPE proposer with constraints', () => {
  for (const surrogate of ['gp', 'parzen'] as const) {
    it(
      `(${surrogate}) stops proposing the infeasible region once it has seen ` +
        `it: less than half as many infeasible proposals in the second half of ` +
        `the run as without constraints, and never keeps one`,
      async () => {
        let withC = 0;
        let without = 0;
        for (const seed of [1, 2, 3, 4]) {
          const a = await run(seed, true, surrogate);
          const b = await run(seed, false, surrogate);
          withC += a.infeasibleLate;
          without += b.infeasibleLate;
          expect(a.kept.every((c) => g(c) <= 0)).toBe(true);
          expect(g(a.final)).toBeLessThanOrEqual(0);
        }
        // 4 seeds x 20 late proposals: without the model of feasibility most go to the infeasible optimum.
        expect(without).toBeGreaterThan(30);
        expect(withC).toBeLessThan(without / 2);
      },
    );
  }

  it(
    "wired through core (withConstraints records each row's violations, " +
      'recordedViolations reads them; the baseline has none and is left out of ' +
      'the feasibility model): as good as the direct function',
    async () => {
      let core = 0;
      let direct = 0;
      for (const seed of [1, 2, 3, 4]) {
        core += (await run(seed, 'core', 'gp')).infeasibleLate;
        direct += (await run(seed, true, 'gp')).infeasibleLate;
      }
      expect(core).toBeLessThanOrEqual(direct + 4);
      expect(core).toBeLessThan(42);
    },
  );

  it(
    'total violation is the sum of the positive constraint values (Optuna), ' + 'NaN counts as infinitely infeasible',
    () => {
      expect(totalViolation([-1, 0, 0.5, 2])).toBe(2.5);
      expect(totalViolation([-1, -2])).toBe(0);
      expect(totalViolation(undefined)).toBe(0);
      expect(totalViolation([Number.NaN])).toBe(Infinity);
    },
  );
});

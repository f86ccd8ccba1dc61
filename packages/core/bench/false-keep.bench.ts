/**
 * False-keep benchmark (pnpm bench; issue 17): the noise-aware keep policy on pure-noise harnesses,
 * through the real engine (createLoop, in-memory artifact and rollback, function harness).
 *
 * Every proposal changes the artifact but not what the harness returns: each evaluation is an
 * independent draw from Bernoulli(0.5) or Uniform(0, 1), so every keep is a false keep. Per
 * harness: RUNS seeded runs of ITERATIONS decisions each (baseline repeated 5 times, the policy's
 * defaults); reported: the false-keep rate per decision (keeps / decisions) against the policy's
 * alpha (one-sided, (1 - confidence) / 2), the share of runs with at least one false keep, and
 * evaluations per decision. The same for the policy without alpha spending (`spending: 'none'`,
 * a test at full alpha at every look), the baseline this change is measured against.
 *
 * Environment overrides: FALSE_KEEP_RUNS (default 1000), FALSE_KEEP_ITERATIONS (default 20).
 */
import {
  createFunctionHarness,
  createFunctionProposer,
  createLoop,
  createMemoryArtifact,
  createMemoryRollback,
  createValueScorer,
  maxIterations,
} from '../src/index.js';
import { createNoiseAwareKeepPolicy, type NoiseAwareKeepPolicyOptions } from '../src/policies.js';
import { createSeededRandom } from '../src/stats.js';

const RUNS = Number(process.env.FALSE_KEEP_RUNS ?? 1000);
const ITERATIONS = Number(process.env.FALSE_KEEP_ITERATIONS ?? 20);

const HARNESSES = {
  'Bernoulli(0.5)': (u: number) => (u < 0.5 ? 1 : 0),
  'Uniform(0,1)': (u: number) => u,
} as const;

async function run(
  draw: (u: number) => number,
  seed: number,
  options: NoiseAwareKeepPolicyOptions,
): Promise<{ kept: number; decided: number; evaluations: number }> {
  const artifact = createMemoryArtifact({ proposal: 0 });
  const noise = createSeededRandom(seed);
  let evaluations = 0;
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer: createFunctionProposer('null-change', ({ iteration }) => {
      artifact.set({ proposal: iteration });
      return { description: `null change ${iteration}` };
    }),
    harness: createFunctionHarness('pure-noise', () => {
      evaluations += 1;
      return draw(noise.next());
    }),
    scorer: createValueScorer('maximize'),
    run: { baselineRepeats: 5 },
    keep: { policy: createNoiseAwareKeepPolicy(options) },
    stop: maxIterations(ITERATIONS),
  });
  let kept = 0;
  let decided = 0;
  loop.on('kept', () => {
    kept += 1;
    decided += 1;
  });
  loop.on('reverted', () => {
    decided += 1;
  });
  await loop.run();
  return { kept, decided, evaluations };
}

const started = performance.now();
const confidence = 0.95;
const alpha = (1 - confidence) / 2;
console.log(
  `\n@loop/core: noise-aware false keeps on pure noise (${RUNS} seeded ` +
    `runs x ${ITERATIONS} decisions, baselineRepeats 5, ` +
    `confidence ${confidence}: alpha ${alpha.toFixed(3)} one-sided)`,
);
console.log(
  '| harness | spending | false keeps / decisions | rate | <= alpha | runs ' +
    'with a false keep | evaluations per decision |',
);
console.log('| --- | --- | ---: | ---: | --- | ---: | ---: |');
for (const [name, draw] of Object.entries(HARNESSES)) {
  for (const spending of ['obrien-fleming', 'none'] as const) {
    let kept = 0;
    let decided = 0;
    let evaluations = 0;
    let runsWithKeep = 0;
    for (let seed = 1; seed <= RUNS; seed++) {
      const r = await run(draw, seed, { confidence, spending });
      kept += r.kept;
      decided += r.decided;
      evaluations += r.evaluations - 5;
      if (r.kept > 0) runsWithKeep += 1;
    }
    const rate = kept / decided;
    console.log(
      `| ${name} | ${spending} | ${kept} / ${decided} | ${rate.toFixed(4)} ` +
        `| ${rate <= alpha ? 'yes' : 'NO'} ` +
        `| ${((100 * runsWithKeep) / RUNS).toFixed(1)}% ` +
        `| ${(evaluations / decided).toFixed(2)} |`,
    );
  }
}
console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);

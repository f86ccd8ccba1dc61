// The seeded mixed objective and the real-engine run the TPE proposer's tests share.
import { createLoop } from '../../../engine/create-loop.js';
import { createFunctionHarness } from '../../../harness/function-harness.js';
import { createHyperparameterMutator } from '../../hyperparameter-mutator.js';
import type { IterationRecord } from '../../../contracts/iteration-record.js';
import { createMemoryArtifact, createMemoryRollback } from '../../../artifacts/memory-artifact.js';
import type { ProposalContext } from '../../../contracts/proposer.js';
import { createSeededRandom } from '../../../stats/random.js';
import { createValueScorer } from '../../../scoring/regex-scorer.js';
import { maxIterations } from '../../../contracts/stop-policy.js';
import { createMemoryConfigAdapter } from '../config-adapter.js';
import type { TpeParameter } from '../space.js';
import { createTpeProposer } from '../tpe-proposer.js';

export type Config = Record<string, unknown>;
export const space: Record<string, TpeParameter> = {
  lr: { min: 1e-4, max: 1e-1, scale: 'log' },
  hidden: { min: 16, max: 512, scale: 'log', integer: true },
  layers: { min: 1, max: 6, integer: true },
  batch: { values: [16, 32, 64, 128] },
  optimizer: { values: ['sgd', 'adam', 'rmsprop'] },
};
export const start: Config = { lr: 0.01, hidden: 64, layers: 2, batch: 32, optimizer: 'sgd', seed: 7 };
const OPT_LR: Record<string, number> = { sgd: 0.03, adam: 0.002, rmsprop: 0.0007 };
const OPT_OFFSET: Record<string, number> = { sgd: 0.15, adam: 0, rmsprop: 0.08 };
export const loss = (c: Config) =>
  OPT_OFFSET[c.optimizer as string]! +
  0.3 * (Math.log(c.lr as number) - Math.log(OPT_LR[c.optimizer as string]!)) ** 2 +
  0.15 * (Math.log2(c.hidden as number) - 7) ** 2 +
  0.05 * ((c.layers as number) - 3) ** 2 +
  0.02 * (Math.log2(c.batch as number) - 6) ** 2;

export interface Run {
  rows: IterationRecord[];
  evaluated: Config[];
  final: Config;
  best: number;
}

/** Runs the real engine on an in-memory config; `crashWhen` makes the harness throw (a crash row). */
export async function run(
  options: {
    seed?: number;
    iterations?: number;
    history?: Config;
    spaceOverride?: Record<string, TpeParameter>;
    crashWhen?: (c: Config) => boolean;
    f?: (c: Config) => number;
    proposer?: 'tpe' | 'mutator';
    avoidCrashes?: boolean;
    tpe?: {
      useBaseline?: boolean;
      univariate?: number;
      refine?: number;
      refineCandidates?: number;
      surrogate?: 'parzen' | 'gp';
    };
  } = {},
): Promise<Run> {
  const artifact = createMemoryArtifact<Config>(options.history ?? start);
  const config = createMemoryConfigAdapter(artifact);
  const f = options.f ?? loss;
  const proposer =
    options.proposer === 'mutator'
      ? createHyperparameterMutator({
          config,
          space: (options.spaceOverride ?? space) as never,
          random: createSeededRandom(options.seed ?? 1),
        })
      : createTpeProposer({
          config,
          space: options.spaceOverride ?? space,
          seed: options.seed ?? 1,
          ...(options.avoidCrashes === undefined ? {} : { avoidCrashes: options.avoidCrashes }),
          ...options.tpe,
        });
  const evaluated: Config[] = [];
  const rows: IterationRecord[] = [];
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer,
    harness: createFunctionHarness('loss', () => {
      const c = artifact.get();
      evaluated.push({ ...c });
      if (options.crashWhen?.(c)) throw new Error('out of memory');
      return f(c);
    }),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(options.iterations ?? 30),
  });
  for (const type of ['baseline', 'kept', 'reverted', 'crash'] as const)
    loop.on(type as never, (e: { record: IterationRecord }) => rows.push(e.record));
  const summary = await loop.run();
  return { rows, evaluated, final: artifact.get(), best: summary.best };
}

export const changed = (a: Config, b: Config) => Object.keys(space).filter((k) => a[k] !== b[k]);
export const ctx = (history: IterationRecord[], iteration: number): ProposalContext => ({
  iteration,
  attempt: 0,
  history,
  baseline: 0,
  best: 0,
  direction: 'minimize',
  hints: [],
  signal: new AbortController().signal,
});

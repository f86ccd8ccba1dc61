import { describe, expect, it } from 'vitest';
import { createLoop } from '../../engine/create-loop.js';
import { createFunctionHarness } from '../../harness/function-harness.js';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import { createMemoryArtifact, createMemoryRollback } from '../../artifacts/memory-artifact.js';
import { createValueScorer } from '../../scoring/regex-scorer.js';
import { maxIterations } from '../../contracts/stop-policy.js';
import { createMemoryConfigAdapter } from './config-adapter.js';
import type { TpeParameter } from './space.js';
import { createTpeProposer } from './tpe-proposer.js';

type Config = Record<string, unknown>;
const space: Record<string, TpeParameter> = { x: { min: 0, max: 1 }, y: { min: 0, max: 1 } };
// The loss depends on x only; the cost (seconds, say) on y only, 1 to about 55.
const loss = (c: Config) => ((c.x as number) - 0.7) ** 2;
const costOf = (c: Config) => Math.exp(4 * (c.y as number));
const seconds = (r: IterationRecord) => r.data?.metrics?.seconds;

async function run(
  seed: number,
  cost: ((r: IterationRecord) => number | undefined) | undefined,
  objective: (c: Config) => number = loss,
) {
  const artifact = createMemoryArtifact<Config>({ x: 0.1, y: 0.5 });
  const evaluated: Config[] = [];
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer: createTpeProposer({
      config: createMemoryConfigAdapter(artifact),
      space,
      seed,
      ...(cost ? { cost } : {}),
    }),
    harness: createFunctionHarness('f', () => {
      const c = artifact.get();
      evaluated.push({ ...c });
      return { value: objective(c), data: { metrics: { seconds: costOf(c) } } };
    }),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(30),
  });
  await loop.run();
  return evaluated;
}

describe('TPE proposer with a cost', () => {
  it('ranks by expected improvement per predicted cost: the same losses for a fraction of the cost', async () => {
    let withCost = 0;
    let without = 0;
    let bestWith = 0;
    let bestWithout = 0;
    for (const seed of [1, 2, 3, 4]) {
      const a = await run(seed, seconds);
      const b = await run(seed, undefined);
      // The model steps (after the 6-row design): what they spent.
      withCost += a.slice(7).reduce((s, c) => s + costOf(c), 0);
      without += b.slice(7).reduce((s, c) => s + costOf(c), 0);
      bestWith += Math.min(...a.map(loss));
      bestWithout += Math.min(...b.map(loss));
    }
    // Measured: 955 against 1,719 (0.56x); best losses 2.5e-6 against 1.7e-6 summed over the seeds
    // (both at the optimum, x = 0.7, to 3 decimals). Plain EI per cost spent 0.21x here, but on the
    // ML demo it proposed cheap hopeless configs: the guard (EI within half of the best) is kept.
    expect(withCost).toBeLessThan(0.65 * without);
    expect(bestWith).toBeLessThan(2 * bestWithout);
  });

  it('buys no cheap hopeless config: where only costly configs are good, the best loss is as without', async () => {
    // The loss falls as y (and so the cost) rises: a cheap config is never good.
    const costly = (c: Config) => loss(c) + 0.3 * (1 - (c.y as number));
    let bestWith = 0;
    let bestWithout = 0;
    for (const seed of [1, 2, 3, 4]) {
      bestWith += Math.min(...(await run(seed, seconds, costly)).map(costly));
      bestWithout += Math.min(...(await run(seed, undefined, costly)).map(costly));
    }
    // Measured: 3.6e-4 against 4.0e-4; without the guard (plain EI per cost) 5.4e-4, 1.35x.
    expect(bestWith).toBeLessThan(1.1 * bestWithout);
  });

  it('changes nothing while no row has a cost: the same proposals as without the option', async () => {
    const a = await run(5, () => undefined);
    const b = await run(5, undefined);
    expect(a).toEqual(b);
  });
});

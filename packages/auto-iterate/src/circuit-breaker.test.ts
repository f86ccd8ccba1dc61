import {
  createMemoryArtifact,
  createMemoryResultsLog,
  createMemoryRollback,
  createLoop,
  createValueScorer,
  maxIterations,
  type Advice,
} from '@loop/core';
import { createCounterProposer, createFakeHarness, type FakeOutcome } from '@loop/internal-test-utils';
import { describe, expect, it } from 'vitest';
import { createCircuitBreaker, STRATEGY_REVIEW_HINT, STRUCTURAL_CHANGE_HINT } from './circuit-breaker.js';

/** Runs a loop over scripted scores and records the advice and the hints each proposal saw. */
async function drive(scores: FakeOutcome[]) {
  const artifact = createMemoryArtifact(0);
  const counter = createCounterProposer(artifact);
  const hintsSeen: string[][] = [];
  const advice: Array<{ iteration: number; advice: Advice }> = [];
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    results: createMemoryResultsLog(),
    harness: createFakeHarness({ scores }),
    proposer: { name: 'spy', propose: (ctx) => (hintsSeen.push([...ctx.hints]), counter.propose(ctx)) },
    scorer: createValueScorer('minimize'),
    advisors: [createCircuitBreaker()],
    stop: maxIterations(scores.length - 1),
  });
  loop.on('advice', (e) => advice.push({ iteration: e.iteration, advice: e.advice }));
  await loop.run();
  return { hintsSeen, advice };
}

describe('circuit breaker (seeds 001 and 003)', () => {
  it('3 crashes in a row pause with a strategy-review hint to the next proposal', async () => {
    const crash = { crash: 'exit-code' } as const;
    const { advice, hintsSeen } = await drive([10, crash, crash, crash, 9]);
    expect(advice.filter((a) => a.advice.kind === 'pause').map((a) => a.iteration)).toEqual([3]);
    expect(hintsSeen[3]).toContain(STRATEGY_REVIEW_HINT);
    expect(hintsSeen[2]).toEqual([]);
  });

  it('5 discards in a row trigger one cool-down round with a structural-change hint', async () => {
    const { advice, hintsSeen } = await drive([10, 11, 11, 11, 11, 11, 11, 9]);
    const cooldowns = advice.filter((a) => a.advice.kind === 'cooldown');
    expect(cooldowns.map((a) => a.iteration)).toEqual([5]);
    expect(hintsSeen[5]).toEqual([STRUCTURAL_CHANGE_HINT]); // the 6th proposal is the cool-down round
    expect(hintsSeen[6]).toEqual([]); // one round only
  });

  it('10 discards in a row emit a notify event once', async () => {
    const { advice } = await drive([10, ...Array<number>(12).fill(11)]);
    expect(advice.filter((a) => a.advice.kind === 'notify').map((a) => a.iteration)).toEqual([10]);
  });

  it('a keep resets the discard streak', async () => {
    const { advice } = await drive([10, 11, 11, 11, 11, 9, 11, 11, 11, 11]);
    expect(advice.filter((a) => a.advice.kind === 'cooldown')).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import type { LoopState } from './loop-state.js';
import { anyOf, maxIterations, neverStop, onAbort, plateau, targetScore, wallClock } from './stop-policy.js';

const state = (over: Partial<LoopState> = {}): LoopState => ({
  iteration: 0,
  startedAt: 0,
  now: 0,
  direction: 'minimize',
  baseline: 10,
  best: 10,
  bestId: 'a',
  history: [],
  counts: { kept: 0, reverted: 0, rejected: 0, crash: 0, halted: 0 },
  consecutiveNonImprovements: 0,
  consecutiveCrashes: 0,
  iterationsThisRun: 0,
  signal: new AbortController().signal,
  ...over,
});

describe('stop policies', () => {
  it('max iterations stops at n, not before', () => {
    expect(maxIterations(3).check(state({ iteration: 2 }))).toBeUndefined();
    expect(maxIterations(3).check(state({ iteration: 3 }))?.reason).toBe('max-iterations');
  });
  it('plateau counts consecutive non-improvements', () => {
    expect(plateau(5).check(state({ consecutiveNonImprovements: 4 }))).toBeUndefined();
    expect(plateau(5).check(state({ consecutiveNonImprovements: 5 }))?.reason).toBe('plateau');
  });
  it('target score is reached by an equal or better best, in either direction', () => {
    expect(targetScore(2).check(state({ best: 2 }))?.reason).toBe('target-reached');
    expect(targetScore(2).check(state({ best: 2.1 }))).toBeUndefined();
    expect(targetScore(0.9).check(state({ best: 0.95, direction: 'maximize' }))?.reason).toBe('target-reached');
  });
  it('wall clock measures from the run start on the injected clock', () => {
    expect(wallClock(1000).check(state({ startedAt: 5000, now: 5999 }))).toBeUndefined();
    expect(wallClock(1000).check(state({ startedAt: 5000, now: 6000 }))?.reason).toBe('wall-clock');
  });
  it('abort stops once the signal is aborted', () => {
    const c = new AbortController();
    expect(onAbort().check(state({ signal: c.signal }))).toBeUndefined();
    c.abort();
    expect(onAbort().check(state({ signal: c.signal }))?.reason).toBe('aborted');
  });
  it('anyOf returns the first policy that fires; neverStop never does', () => {
    const s = state({ iteration: 10, consecutiveNonImprovements: 10 });
    expect(anyOf(neverStop(), plateau(3), maxIterations(5)).check(s)?.reason).toBe('plateau');
    expect(anyOf(neverStop()).check(s)).toBeUndefined();
  });
});

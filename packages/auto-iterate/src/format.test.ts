import { describe, expect, it } from 'vitest';
import type { IterationRecord, LoopSummary } from '@loop/core';
import { formatIterationLine, formatSummary } from './format.js';

const record = (over: Partial<IterationRecord>): IterationRecord => ({
  iteration: 1,
  candidateId: '150b777abc',
  score: null,
  status: 'rejected',
  description: 'lr down (changed outside the targets: notes.md)',
  ...over,
});

describe('formatIterationLine', () => {
  it('a rejected row prints "-" for its score and says rejected, like results.tsv; it is no crash', () => {
    const line = formatIterationLine({
      type: 'crash',
      record: record({}),
      logTail: '',
      willRepair: false,
      durationMs: 150,
    })!;
    expect(line).toContain('rejected: lr down (changed outside the targets: notes.md)');
    expect(line).not.toContain('crash');
    expect(line).toMatch(/discard\s+-\s/);
  });

  it('a crash row still prints crash where the score would be', () => {
    const line = formatIterationLine({
      type: 'crash',
      record: record({ status: 'crash', description: 'x -> 9' }),
      logTail: '',
      willRepair: false,
      durationMs: 150,
    })!;
    expect(line).toMatch(/crash\s+crash/);
  });
});

describe('formatSummary', () => {
  const summary = (over: Partial<LoopSummary>): LoopSummary => ({
    direction: 'minimize',
    baseline: 3,
    best: 2.5,
    bestId: 'abc1234def',
    iterations: 12,
    counts: { kept: 2, reverted: 10, rejected: 0, crash: 0, halted: 0 },
    kept: [],
    stop: { reason: 'max-iterations', message: '12 iterations' },
    durationMs: 100,
    iterationsThisRun: 12,
    ...over,
  });

  it('after a resume that added no iterations, the time says it covers this session only (0 of 12 iterations)', () => {
    expect(formatSummary(summary({ iterationsThisRun: 0 }))).toContain('in 0.1 s (this session: 0 of 12 iterations)');
  });

  it('a run without a resume prints the time alone', () => {
    const text = formatSummary(summary({ durationMs: 61_000 }));
    expect(text).toMatch(/crash 0 {2}in 61\.0 s$/m);
    expect(text).not.toContain('this session');
  });
});

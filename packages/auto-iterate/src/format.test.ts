import { describe, expect, it } from 'vitest';
import type { IterationRecord } from '@loop/core';
import { formatIterationLine } from './format.js';

const record = (over: Partial<IterationRecord>): IterationRecord => ({ iteration: 1, candidateId: '150b777abc', score: null, status: 'rejected', description: 'lr down (changed outside the targets: notes.md)', ...over });

describe('formatIterationLine', () => {
  it('a rejected row prints "-" for its score and says rejected, like results.tsv; it is no crash', () => {
    const line = formatIterationLine({ type: 'crash', record: record({}), logTail: '', willRepair: false, durationMs: 150 })!;
    expect(line).toContain('rejected: lr down (changed outside the targets: notes.md)');
    expect(line).not.toContain('crash');
    expect(line).toMatch(/discard\s+-\s/);
  });

  it('a crash row still prints crash where the score would be', () => {
    const line = formatIterationLine({ type: 'crash', record: record({ status: 'crash', description: 'x -> 9' }), logTail: '', willRepair: false, durationMs: 150 })!;
    expect(line).toMatch(/crash\s+crash/);
  });
});

import { describe, expect, it } from 'vitest';
import { buildMemorySections, discardedRowsForPrompt, readNotes } from './agent-memory.js';
import type { IterationRecord, IterationStatus } from '../contracts/iteration-record.js';

const row = (
  iteration: number,
  status: IterationStatus,
  score: number | null,
  description: string,
  candidateId = `c${iteration}`,
): IterationRecord => ({ iteration, candidateId, score, status, description });

describe('agent memory sections', () => {
  it('a duplicate the engine refused is named in the next prompt with the iteration it duplicated', () => {
    const history = [
      row(0, 'baseline', 5, 'baseline'),
      row(1, 'reverted', 6, 'lr 2'),
      row(2, 'reverted', null, 'lr 2 again (duplicate of iteration 1: not evaluated)', ''),
    ];
    const text = buildMemorySections(history, {}).join('\n');
    expect(text).toContain(
      '## Your last proposal was a duplicate\n- iteration 2 produced exactly ' +
        'the files of iteration 1, which was already evaluated, so it was not run ' +
        'again.',
    );
    expect(buildMemorySections(history.slice(0, 2), {}).join('\n')).not.toContain('duplicate');
  });
  it(
    'a discard scored against a state that later keeps changed gets a ' +
      'revisit hint; one after the last keep does not',
    () => {
      const history = [
        row(0, 'baseline', 5, 'baseline'),
        row(1, 'reverted', 6, 'lr 2'),
        row(2, 'kept', 4, 'depth 3'),
        row(3, 'reverted', 4.5, 'lr 3'),
      ];
      const text = buildMemorySections(history, {}).join('\n');
      expect(text).toContain('## Worth revisiting');
      expect(text).toContain('- iteration 1 (score 6): lr 2; kept since: iteration 2');
      expect(text).not.toContain('iteration 3 (score 4.5)');
    },
  );
  it('shows the discarded diffs under their rows, and picks the last committed, evaluated discards', () => {
    const history = [
      row(0, 'baseline', 5, 'baseline'),
      row(1, 'reverted', 6, 'lr 2'),
      row(2, 'crash', null, 'lr 9 (crash: oom)'),
      row(3, 'reverted', null, 'x (no change: not evaluated)', ''),
      row(4, 'kept', 4, 'ok'),
    ];
    expect(discardedRowsForPrompt(history, 3).map((r) => r.iteration)).toEqual([1, 2]);
    const text = buildMemorySections(history, { diffs: [{ iteration: 1, diff: '-lr 1\n+lr 2\n' }] }).join('\n');
    expect(text).toContain('### iteration 1 (reverted, score 6): lr 2\n```diff\n-lr 1\n+lr 2\n```');
  });
  it('readNotes keeps the newest lines first within the line and byte caps', () => {
    expect(readNotes('a\n\nb\nc\n', { maxLines: 2, maxBytes: 100 })).toEqual({ lines: ['c', 'b'], omitted: 1 });
    expect(readNotes('aaaa\nbbbb\n', { maxLines: 9, maxBytes: 6 })).toEqual({ lines: ['bbbb'], omitted: 1 });
  });
});

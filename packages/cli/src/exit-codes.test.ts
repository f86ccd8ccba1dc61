import { ConfigError, LoopError, type LoopSummary } from '@loop/core';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, exitCodeForError, exitCodeForSummary } from './exit-codes.js';

const summary = (reason: string) => ({ stop: { reason, message: '' } }) as unknown as LoopSummary;

describe('exit codes', () => {
  it('are distinct: 0 stopped, 1 other, 2 config, 3 lock held, 4 restore failed, 130 interrupted', () => {
    expect(EXIT_CODES).toEqual({ STOPPED: 0, FAILED: 1, CONFIG: 2, LOCK_HELD: 3, RESTORE_FAILED: 4, INTERRUPTED: 130 });
    expect(new Set(Object.values(EXIT_CODES)).size).toBe(6);
  });

  it('map errors by code', () => {
    expect(exitCodeForError(new ConfigError('x', []))).toBe(2);
    expect(exitCodeForError(new LoopError('LOCK_HELD', 'x'))).toBe(3);
    expect(exitCodeForError(new LoopError('RESTORE_FAILED', 'x'))).toBe(4);
    expect(exitCodeForError(new LoopError('DIRTY_WORKTREE', 'x'))).toBe(1);
    expect(exitCodeForError(new Error('x'))).toBe(1);
  });

  it(
    'map stop reasons: a policy stop is 0, a Ctrl-C stop that completed its ' +
      'stop sequence (best restored, state written) is 0 too, restore-failed is ' +
      '4',
    () => {
      expect(
        ['max-iterations', 'plateau', 'target-reached', 'wall-clock'].map((r) => exitCodeForSummary(summary(r))),
      ).toEqual([0, 0, 0, 0]);
      expect(exitCodeForSummary(summary('aborted'))).toBe(0);
      expect(exitCodeForSummary(summary('restore-failed'))).toBe(4);
      expect(exitCodeForSummary(summary('proposer-failing'))).toBe(1);
    },
  );
});

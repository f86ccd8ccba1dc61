import type { IterationRecord } from '@loop/core';
import { describe, expect, it } from 'vitest';
import { formatStatus, type WorkspaceStatus } from './workspace-status.js';

const rows: IterationRecord[] = [
  { iteration: 0, candidateId: 'a1b2c3d4e5', score: 3.231962, status: 'baseline', description: 'baseline' },
  { iteration: 1, candidateId: 'b2c3d4e5f6', score: 12.5, status: 'reverted', description: 'lr 0.01 -> 0.1' },
  { iteration: 2, candidateId: 'c3d4e5f6a7', score: null, status: 'crash', description: 'OOM' },
  { iteration: 10, candidateId: 'd4e5f6a7b8', score: 3.2, status: 'kept', description: 'layers 2 -> 3' },
];
const status: WorkspaceStatus = {
  dir: '/w',
  tag: 'mar21-143005',
  state: {
    status: 'stopped',
    iteration: 10,
    direction: 'minimize',
    baseline: 3.231962,
    best: 3.2,
    bestId: 'd4e5f6a7b8',
    counts: { kept: 1, reverted: 1, crash: 1 },
  },
  rows,
  locked: false,
};

describe('loop status', () => {
  it('rows are padded into aligned columns and every score has 6 decimals (best and baseline too)', () => {
    const text = formatStatus(status, 10);
    expect(text).toContain('best      3.200000 at d4e5f6a (baseline 3.231962, lower is better)');
    const lines = text.split('\n').slice(-4);
    expect(lines).toEqual([
      '     0  a1b2c3d   3.231962  keep     baseline',
      '     1  b2c3d4e  12.500000  discard  lr 0.01 -> 0.1',
      '     2  c3d4e5f      crash  crash    OOM',
      '    10  d4e5f6a   3.200000  keep     layers 2 -> 3',
    ]);
  });

  it('a running state with no lock holder says how it continues (loop resume, or an MCP host)', () => {
    const running = { ...status, state: { ...status.state!, status: 'running' } };
    expect(formatStatus(running)).toContain(
      'status    running (but no process holds the lock: interrupted, or an MCP server exited with a ' +
        'trial open; "loop resume" or the next loop_evaluate continues it)',
    );
    expect(formatStatus({ ...running, locked: true })).toMatch(/^status {4}running$/m);
  });

  it('a run stopped before its baseline (branch, no rows) points to loop resume, not to a new loop run', () => {
    const text = formatStatus({ dir: '/w', tag: 'dec6-0833', state: undefined, rows: [], locked: false });
    expect(text).toContain('a run was started on this branch but recorded no row');
    expect(text).toContain('"loop resume" continues it');
    expect(formatStatus({ dir: '/w', tag: undefined, state: undefined, rows: [], locked: false })).toContain(
      'no run here yet',
    );
  });
});

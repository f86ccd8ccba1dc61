import { describe, expect, it } from 'vitest';
import { decideRollback } from './rollback-matrix.js';

const fixes = (c: number, o: number) => [
  ...Array.from({ length: c }, (_, i) => ({ id: `FIX-1${i}`, kind: 'correctness' as const })),
  ...Array.from({ length: o }, (_, i) => ({ id: `FIX-2${i}`, kind: 'optimization' as const })),
];

describe('seed 000 Stage 6 rollback matrix', () => {
  it(
    'correctness, any delta: never a whole-iteration rollback; keep ' +
      'correctness, per-FIX revert optimization only when the scalar degrades',
    () => {
      expect(decideRollback('correctness', 1, fixes(1, 1))).toMatchObject({ revert: [], keep: ['FIX-10', 'FIX-20'] });
      expect(decideRollback('correctness', -1, fixes(1, 1))).toMatchObject({ revert: ['FIX-20'], keep: ['FIX-10'] });
    },
  );
  it('optimization, degrades: per-FIX revert all optimization, force-keep correctness', () => {
    expect(decideRollback('optimization', -0.5, fixes(1, 2))).toMatchObject({
      revert: ['FIX-20', 'FIX-21'],
      keep: ['FIX-10'],
    });
  });
  it('optimization, flat or improves: keep all', () => {
    expect(decideRollback('optimization', 0, fixes(1, 2)).revert).toEqual([]);
    expect(decideRollback('optimization', null, fixes(1, 2)).revert).toEqual([]);
  });
  it('both, degrades with >= 50% optimization FIXes: per-FIX revert optimization, keep correctness', () => {
    expect(decideRollback('both', -1, fixes(1, 1))).toMatchObject({ revert: ['FIX-20'], keep: ['FIX-10'] });
  });
  it('both, degrades with >= 80% correctness FIXes: keep all (crash-fix priority)', () => {
    expect(decideRollback('both', -1, fixes(4, 1))).toMatchObject({
      revert: [],
      keep: ['FIX-10', 'FIX-11', 'FIX-12', 'FIX-13', 'FIX-20'],
    });
  });
  it('both, degrades with 50-80% correctness FIXes: per-FIX revert optimization, keep correctness', () => {
    expect(decideRollback('both', -1, fixes(3, 1))).toMatchObject({
      revert: ['FIX-20'],
      row: expect.stringContaining('50-80%'),
    });
  });
  it('both, flat or improves: keep all', () => {
    expect(decideRollback('both', 2, fixes(0, 3)).revert).toEqual([]);
  });
});

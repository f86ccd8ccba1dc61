// Stage 6's rollback matrix applied with per-FIX git revert (seed 000), one iteration per case.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFixWorld, gitSh, gitSubjects, type FixSpec, type FixWorld } from '../test/fixtures/fix-world.js';

let w: FixWorld;
beforeEach(() => (w = createFixWorld()));
afterEach(() => w.cleanup());

/** Runs a one-iteration scenario and returns what Stage 6 did. */
async function matrix(goal: 'correctness' | 'optimization' | 'both', specs: FixSpec[]) {
  w.makeRepo();
  const s = w.setup(specs, { goal });
  await s.a.run();
  const entry = (await s.state())!.iterations[0]!;
  return {
    ...s,
    entry,
    summary: s.read(s.ip.summary),
    log: gitSubjects(w.project),
    files: readdirSync(join(w.project, 'src')).sort(),
  };
}
const REVERT = 'chore: revert optimization FIX(es) due to scalar regression (iter-1)';

describe('Stage 6 rollback matrix, applied with per-FIX git revert', () => {
  it(
    'rollback matrix correctness · degrades: correctness FIXes are kept, ' +
      'optimization FIXes are reverted one by one (single revert commit), never ' +
      'a whole-iteration rollback',
    async () => {
      const r = await matrix('correctness', [
        { kind: 'correctness', delta: 0 },
        { kind: 'optimization', delta: -2 },
        { kind: 'optimization', delta: 1 },
      ]);
      expect(r.entry.scalar_delta).toBe(-1);
      expect(r.entry.rollback).toMatchObject({
        row: 'correctness · degrades · keep correctness, per-FIX revert optimization',
        reverted: [{ id: 'FIX-002' }, { id: 'FIX-003' }],
      });
      expect(r.log[0]).toBe(REVERT);
      expect(r.log).toHaveLength(5);
      expect(r.files).toEqual(['FIX-001.delta', 'lib.js']);
      expect(gitSh(w.project, 'log', '-1', '--format=%B')).toContain('Collie-Revert: iter-1');
      expect(r.summary).toMatch(
        new RegExp(
          String.raw`## rollback_log\nrow: correctness · degrades · keep correctness, ` +
            String.raw`per-FIX revert optimization\n- FIX-002 reverted \(commit ` +
            String.raw`[0-9a-f]{40}\) in [0-9a-f]{40}\n- FIX-003 reverted`,
        ),
      );
    },
  );

  it('rollback matrix correctness · improves: everything is kept', async () => {
    const r = await matrix('correctness', [
      { kind: 'correctness', delta: 1 },
      { kind: 'optimization', delta: 1 },
    ]);
    expect(r.entry.rollback).toMatchObject({
      row: 'correctness · flat/improves · keep all',
      reverted: [],
      commit: null,
    });
    expect(r.files).toEqual(['FIX-001.delta', 'FIX-002.delta', 'lib.js']);
  });

  it(
    'rollback matrix optimization · degrades: every optimization FIX is ' +
      'reverted, correctness FIXes are force-kept',
    async () => {
      const r = await matrix('optimization', [
        { kind: 'optimization', delta: -1 },
        { kind: 'correctness', delta: 0 },
      ]);
      expect(r.entry.rollback).toMatchObject({
        row: 'optimization · degrades · per-FIX revert optimization, force-keep correctness',
        reverted: [{ id: 'FIX-001' }],
      });
      expect(r.log[0]).toBe(REVERT);
      expect(r.files).toEqual(['FIX-002.delta', 'lib.js']);
    },
  );

  it('rollback matrix optimization · flat/improves: everything is kept, no revert commit', async () => {
    const r = await matrix('optimization', [{ kind: 'optimization', delta: 2 }]);
    expect(r.entry.rollback).toMatchObject({
      row: 'optimization · flat/improves · keep all',
      reverted: [],
      commit: null,
    });
    expect(r.log).not.toContain(REVERT);
  });

  it(
    'rollback matrix both · degrades · >=50% optimization FIXes: ' + 'optimization FIXes reverted, correctness kept',
    async () => {
      const r = await matrix('both', [
        { kind: 'optimization', delta: -1 },
        { kind: 'optimization', delta: 0 },
        { kind: 'correctness', delta: 0 },
      ]);
      expect(r.entry.rollback).toMatchObject({
        row: 'both · degrades · >=50% optimization · per-FIX revert optimization',
        reverted: [{ id: 'FIX-001' }, { id: 'FIX-002' }],
      });
      expect(r.files).toEqual(['FIX-003.delta', 'lib.js']);
    },
  );

  it('rollback matrix both · degrades · >=80% correctness FIXes: everything is kept (crash-fix priority)', async () => {
    const r = await matrix('both', [
      { kind: 'correctness' },
      { kind: 'correctness' },
      { kind: 'correctness' },
      { kind: 'correctness' },
      { kind: 'optimization', delta: -1 },
    ]);
    expect(r.entry.scalar_delta).toBe(-1);
    expect(r.entry.rollback).toMatchObject({
      row: 'both · degrades · >=80% correctness · keep all (crash-fix priority)',
      reverted: [],
      commit: null,
    });
    expect(r.log).not.toContain(REVERT);
  });

  it(
    'rollback matrix both · degrades · 50-80% correctness FIXes: ' + 'optimization FIXes reverted, correctness kept',
    async () => {
      const r = await matrix('both', [
        { kind: 'correctness' },
        { kind: 'correctness' },
        { kind: 'optimization', delta: -1 },
      ]);
      expect(r.entry.rollback).toMatchObject({
        row: 'both · degrades · 50-80% correctness · per-FIX revert optimization',
        reverted: [{ id: 'FIX-003' }],
      });
      expect(r.files).toEqual(['FIX-001.delta', 'FIX-002.delta', 'lib.js']);
    },
  );

  it('rollback matrix both · flat/improves: everything is kept', async () => {
    const r = await matrix('both', [
      { kind: 'optimization', delta: 1 },
      { kind: 'correctness', delta: 0 },
    ]);
    expect(r.entry.rollback).toMatchObject({ row: 'both · flat/improves · keep all', reverted: [] });
    expect(r.files).toEqual(['FIX-001.delta', 'FIX-002.delta', 'lib.js']);
  });
});

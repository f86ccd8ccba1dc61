import { readFileSync } from 'node:fs';
import { userPolicies } from '@loop/internal-test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLedger } from './stage-files.js';
import { createFixWorld, gitSubjects, stagesOf, type FixWorld } from '../test/fixtures/fix-world.js';

let w: FixWorld;
beforeEach(() => {
  w = createFixWorld();
  w.makeRepo();
});
afterEach(() => w.cleanup());

const FIXES = [
  { kind: 'correctness' as const, delta: 1 },
  { kind: 'optimization' as const, delta: 5 },
];

describe('one user-written KeepPolicy, StopPolicy and Guard work unchanged with collie (issue 11: one engine)', () => {
  it(
    'the user guard refuses FIX-002 after its commit (reset, flow.json and ' +
      'user-log say why), the user keep policy reverts the gain of 1 the seed ' +
      'matrix keeps, and the user stop policy ends the run after two iterations ' +
      'without a keep',
    async () => {
      const { keepPolicy, stop, guard, calls } = userPolicies({ minGain: 2, patience: 2, banned: /^FIX-002 / });
      const { a, state, notes } = w.setup(FIXES, {
        goal: 'correctness',
        maxIterations: 5,
        keepPolicy,
        stop,
        guards: [guard],
      });
      const outs = await a.run();
      expect(stagesOf(outs).filter((s) => s.startsWith('stage6') || s === 'done')).toEqual([
        'stage6:running',
        'stage6:converged',
        'done',
      ]);
      const s = (await state())!;
      expect(s).toMatchObject({
        status: 'converged',
        stop_reason: 'user-plateau: 2 iterations without a keep',
        iter: 2,
      });
      expect(calls.decide).toBe(2);
      for (const it of s.iterations) {
        // 5 -> 6 (FIX-001 alone): the seed matrix keeps a correctness FIX, the user policy wants a gain of 2 over the
        // best kept (5).
        expect(it).toMatchObject({
          scalar_after: 6,
          fixes_applied: ['FIX-001'],
          rollback: {
            row: expect.stringMatching(/ · user-min-gain: gain 1 vs 2 · revert all$/),
            reverted: [{ id: 'FIX-001' }],
          },
        });
        const ledger = (await readLedger(a.paths.run(s.runId).iter(it.iter).flow))!;
        const refused = ledger.applied.find((e) => e.id === 'FIX-002');
        expect(refused).toMatchObject({ commit: null, files: [], note: 'banned (user-ban: banned by the user)' });
      }
      const log = readFileSync(a.paths.run(s.runId).userLog, 'utf8');
      expect(log).toContain('FIX-002 (optimization): not applied — banned (user-ban: banned by the user)');
      expect(log).toMatch(
        /Rollback \(.* · user-min-gain: gain 1 vs 2 · revert all\): reverted FIX-001 in [0-9a-f]{12}\./,
      );
      // No FIX-002 commit on the branch; each iteration's FIX-001 is reverted by one commit naming the policy.
      const subjects = gitSubjects(w.project);
      expect(subjects.filter((x) => x.includes('FIX-002'))).toEqual([]);
      expect(subjects.filter((x) => x.startsWith('chore: revert FIX(es) not kept by user-min-gain'))).toHaveLength(2);
      expect(readFileSync(`${w.project}/src/lib.js`, 'utf8')).toBe('export const x = 1;\n');
      expect(notes.map((n) => n.event)).toEqual(['autoiter_done']);
    },
  );

  it(
    'without user policies the same scenario keeps FIX-001 and applies ' +
      'FIX-002 (the policies above, not the seed rules, made the difference)',
    async () => {
      const { a, state } = w.setup(FIXES, { goal: 'correctness', maxIterations: 1 });
      await a.run();
      const s = (await state())!;
      expect(s.iterations[0]).toMatchObject({
        scalar_before: 5,
        scalar_after: 11,
        fixes_applied: ['FIX-001', 'FIX-002'],
        rollback: { reverted: [] },
      });
    },
  );

  it(
    'a user guard that halts in beforeEdit escalates the run before the FIX ' +
      'is applied; its reason is in stop_reason',
    async () => {
      const halt = { name: 'user-halt', beforeEdit: () => ({ action: 'halt' as const, note: 'needs a human' }) };
      const { a, state, escalations } = w.setup(FIXES, { goal: 'correctness', guards: [halt] });
      const outs = await a.run();
      expect(stagesOf(outs).slice(-2)).toEqual(['stage5.1:escalated', 'done']);
      expect(await state()).toMatchObject({
        status: 'escalated',
        stop_reason: 'guard_halted: FIX-001: halted (user-halt: needs a human)',
      });
      expect(escalations).toHaveLength(1);
      expect(gitSubjects(w.project)).toEqual(['initial']);
    },
  );
});

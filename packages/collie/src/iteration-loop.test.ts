// Stage 5.3-6 through the core engine (issue 26): the engine's rows and state store carry collie's keep decision and
// stop.
import { readFileSync } from 'node:fs';
import type { EngineState, IterationRecord } from '@loop/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFixWorld, gitSubjects, type FixWorld } from '../test/fixtures/fix-world.js';

let w: FixWorld;
beforeEach(() => {
  w = createFixWorld();
  w.makeRepo();
});
afterEach(() => w.cleanup());

const rowsOf = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as IterationRecord);

describe('collie Stage 5.3-6 on the core engine', () => {
  it(
    'the engine appends one row per iteration to loop-results.jsonl (collie ' +
      'facts, trigger facts, the matrix decision) and its state store records ' +
      'the SC stop Stage 6 acts on',
    async () => {
      const s = w.setup(
        [
          { kind: 'optimization', delta: -1 },
          { kind: 'correctness', delta: 0 },
        ],
        { goal: 'optimization' },
      );
      await s.a.run();
      const rp = s.a.paths.run((await s.state())!.runId);
      const rows = rowsOf(rp.loopResults);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        iteration: 1,
        score: 4,
        status: 'kept',
        description: 'iter-1: FIX-001, FIX-002',
        data: {
          collie: {
            iter: 1,
            before: 5,
            fixes: [
              { id: 'FIX-001', kind: 'optimization' },
              { id: 'FIX-002', kind: 'correctness' },
            ],
          },
          trigger: { exitCode: 0, errorSignature: null, blockingLine: null },
          matrix: {
            row: 'optimization · degrades · per-FIX revert optimization, force-keep correctness',
            revert: ['FIX-001'],
          },
        },
      });
      const engine = JSON.parse(readFileSync(rp.loopState, 'utf8')) as EngineState;
      expect(engine).toMatchObject({ status: 'stopped', iteration: 1, stopReason: 'SC1' });
      expect(await s.state()).toMatchObject({
        status: 'budget_exhausted',
        stop_reason: expect.stringMatching(/^SC1: /),
      });
      expect((await s.state())!.iterations[0]!.rollback).toMatchObject({ reverted: [{ id: 'FIX-001' }] });
    },
  );

  it(
    'an afterScore guard that rejects the iteration makes the engine row ' +
      'reverted, and Stage 6 reverts every FIX (row `<matrix row> · <guard>: ' +
      '<note> · revert all`)',
    async () => {
      const guard = { name: 'user-after', afterScore: () => ({ action: 'reject' as const, note: 'not this one' }) };
      const s = w.setup([{ kind: 'correctness', delta: 1 }], { goal: 'correctness', guards: [guard] });
      await s.a.run();
      const st = (await s.state())!;
      expect(rowsOf(s.a.paths.run(st.runId).loopResults)[0]).toMatchObject({
        status: 'reverted',
        note: 'user-after: not this one',
      });
      expect(st.iterations[0]!.rollback).toMatchObject({
        row: 'correctness · flat/improves · keep all · user-after: not this one · revert all',
        reverted: [{ id: 'FIX-001' }],
      });
      expect(gitSubjects(w.project)[0]).toBe('chore: revert FIX(es) not kept by user-after (iter-1)');
    },
  );

  it(
    'an afterScore guard that halts stops the run escalated with ' +
      '`guard-halt: <guard>: <note>` after Stage 6 reverted every FIX',
    async () => {
      const guard = { name: 'user-after', afterScore: () => ({ action: 'halt' as const, note: 'needs a human' }) };
      const s = w.setup([{ kind: 'correctness', delta: 1 }], {
        goal: 'correctness',
        guards: [guard],
        maxIterations: 3,
      });
      await s.a.run();
      const st = (await s.state())!;
      expect(st).toMatchObject({ status: 'escalated', stop_reason: 'guard-halt: user-after: needs a human', iter: 1 });
      expect(st.iterations[0]!.rollback).toMatchObject({ reverted: [{ id: 'FIX-001' }] });
      expect(rowsOf(s.a.paths.run(st.runId).loopResults)[0]).toMatchObject({ status: 'halted' });
    },
  );
});

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopError, LoopError } from '@loop/core';
import {
  createRecordingCommitter,
  failedAttempts,
  initAutotune,
  readLoopStateFile,
  readScoreboard,
  runController,
  runControllerIteration,
  type RoundWorker,
} from './index.js';
import {
  code,
  dir,
  options,
  paths,
  removeWorkspace,
  setUpWorkspace,
  snapshot,
  worker,
} from './controller-test-workspace.js';

beforeEach(setUpWorkspace);
afterEach(removeWorkspace);

describe('seed 004 loop steps', () => {
  it(
    'seed 004 steps 1-2: a complete loop_state.json is reported and the ' +
      'iteration exits without running a round or writing',
    async () => {
      writeFileSync(
        paths.loopState,
        JSON.stringify({ mode: 'auto', status: 'complete', last_round: null, stop_reason: 'stop_success: done' }),
      );
      const before = snapshot();
      const calls: string[] = [];
      const result = await runControllerIteration(options(worker({}, calls)));
      expect(result.outcome).toBe('already-complete');
      expect(result.round).toBeNull();
      expect(result.report).toContain('stop_success: done');
      expect(calls).toEqual([]);
      expect(snapshot()).toEqual(before);
    },
  );

  it('seed 004 step 3: the run is marked mode auto and status running before the round is delegated', async () => {
    expect(await readLoopStateFile(paths.loopState)).toMatchObject({ mode: 'manual', status: 'idle' });
    let seen: unknown;
    const w = worker({ b: 1, c: 1, d: 1 }, [], {
      improve: async () => {
        seen = await readLoopStateFile(paths.loopState);
        return { summary: 'x', targets: [] };
      },
    });
    await runControllerIteration(options(w));
    expect(seen).toMatchObject({ mode: 'auto', status: 'running' });
  });

  it('seed 004 principle: one loop iteration runs exactly one orchestrated round, never more', async () => {
    const calls: string[] = [];
    const result = await runControllerIteration(options(worker({ b: 1, c: 2, d: 3 }, calls)));
    expect(calls).toEqual(['improve 1', 'evaluate 1']);
    expect(result).toMatchObject({ outcome: 'continue', round: 1 });
    const second = await runControllerIteration(options(worker({ b: 1, c: 2, d: 3 }, calls)));
    expect(calls).toEqual(['improve 1', 'evaluate 1', 'improve 2', 'evaluate 2']);
    expect(second.round).toBe(2);
  });

  it(
    'seed 004 step 7: on continue the iteration returns normally with ' + 'status running and the round recorded',
    async () => {
      const result = await runControllerIteration(options(worker({ b: 1, c: 2, d: 2 })));
      expect(result.outcome).toBe('continue');
      const state = await readLoopStateFile(paths.loopState);
      expect(state).toMatchObject({
        mode: 'auto',
        status: 'running',
        stop_reason: null,
        last_round: { round: 1, recommended_action: 'continue', outcome: 'evaluated' },
      });
    },
  );

  it('seed 004 step 6: stop_success sets status complete and persists stop_reason', async () => {
    const result = await runControllerIteration(options(worker({ b: 1, c: 1, d: 1 })));
    expect(result.outcome).toBe('completed');
    const state = await readLoopStateFile(paths.loopState);
    expect(state.status).toBe('complete');
    expect(state.last_round?.recommended_action).toBe('stop_success');
    expect(state.stop_reason).toMatch(/^stop_success: all high\/medium-priority tasks are fixed or consciously parked/);
    // The next iteration only reports.
    expect((await runControllerIteration(options(worker({})))).outcome).toBe('already-complete');
  });

  it(
    'seed 004 steps 5-6: the stop decision is re-read from loop_state.json ' + 'after the round, not taken from memory',
    async () => {
      // The round recommends continue; something else (here the artifacts commit hook) rewrites the file to
      // stop_success.
      const committer = createRecordingCommitter(async (request) => {
        if (request.kind !== 'artifacts' || request.message.includes('loop complete')) return;
        const state = JSON.parse(readFileSync(paths.loopState, 'utf8'));
        state.last_round.recommended_action = 'stop_success';
        state.last_round.reason = 'operator says done';
        writeFileSync(paths.loopState, JSON.stringify(state));
      });
      const result = await runControllerIteration(options(worker({ b: 1, c: 2, d: 2 }), { committer }));
      expect(result.outcome).toBe('completed');
      expect((await readLoopStateFile(paths.loopState)).stop_reason).toBe('stop_success: operator says done');
    },
  );

  it(
    'seed 004: state lives only in files, so fresh options and a fresh ' +
      'worker each iteration reach the same end as runController',
    async () => {
      const results = [];
      for (let i = 0; i < 10; i += 1) {
        const r = await runControllerIteration(options(worker({ b: 1, c: 2 })));
        results.push(r.outcome);
        if (r.outcome !== 'continue') break;
      }
      const separate = snapshot();
      // Same run in process.
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(join(dir, 'code'), { recursive: true });
      for (const id of ['a', 'b', 'c', 'd']) writeFileSync(join(dir, 'code', id), id === 'a' ? 'ok' : 'bug');
      await initAutotune({ dir });
      const { iterations, final } = await runController(options(worker({ b: 1, c: 2 })));
      expect(iterations.map((r) => r.outcome)).toEqual(results);
      expect(final.outcome).toBe('completed');
      expect(snapshot()).toEqual(separate);
    },
  );
});

describe('seed 004 stop criteria and artifacts', () => {
  it(
    'seed 004: "failed 3+ times" is computed from scoreboard.json, not ' +
      'memory, and forces stop_exhausted for that target',
    async () => {
      // Two failed attempts at d were recorded by earlier runs (another process): one more failure exhausts it.
      const board = await readScoreboard(paths.scoreboard);
      board.targets.d = { attempts: [1, 2].map((round) => ({ round, outcome: 'failed' as const, at: 'x' })) };
      writeFileSync(paths.scoreboard, JSON.stringify(board));
      writeFileSync(
        paths.loopState,
        JSON.stringify({
          mode: 'auto',
          status: 'running',
          last_round: {
            round: 2,
            recommended_action: 'continue',
            outcome: 'evaluated',
            reason: '',
            summary: '',
            targets: ['d'],
            parked: [],
            finished_at: 'x',
          },
          stop_reason: null,
        }),
      );
      const result = await runControllerIteration(options(worker({ b: 1, c: 1 })));
      expect(result.outcome).toBe('completed');
      expect(result.round).toBe(3);
      const state = await readLoopStateFile(paths.loopState);
      expect(state.last_round).toMatchObject({ recommended_action: 'stop_exhausted', parked: ['d'] });
      expect(state.stop_reason).toBe(
        'stop_exhausted: the same targeted improvement failed 3+ times: d (3 failed attempts)',
      );
      expect(failedAttempts(await readScoreboard(paths.scoreboard), 'd')).toBe(3);
    },
  );

  it('seed 004: a target that failed twice and then got fixed does not stop the loop', async () => {
    const { final } = await runController(options(worker({ b: 3, c: 1, d: 1 })));
    expect(final.state.last_round).toMatchObject({ round: 3, recommended_action: 'stop_success' });
    expect(failedAttempts(await readScoreboard(paths.scoreboard), 'b')).toBe(2);
  });

  it(
    'seed 004: stopping as exhausted appends the out-of-reach tasks to ' +
      'cannot_handle_group.txt and the parked rationale to issues.md',
    async () => {
      mkdirSync(join(dir, 'eval', 'config'), { recursive: true });
      writeFileSync(paths.exclusions, '# out of reach\nlegacy-task');
      writeFileSync(paths.issues, '# issues\n\n## Known\n\n- flaky network\n');
      const { final } = await runController(options(worker({ b: 1 })));
      expect(final.state.last_round).toMatchObject({
        round: 3,
        recommended_action: 'stop_exhausted',
        parked: ['c', 'd'],
      });
      expect(readFileSync(paths.exclusions, 'utf8')).toBe('# out of reach\nlegacy-task\nc\nd\n');
      const issues = readFileSync(paths.issues, 'utf8');
      expect(issues.startsWith('# issues\n\n## Known\n\n- flaky network\n')).toBe(true);
      expect(issues).toContain('## Parked in round 3');
      expect(issues).toContain('- c: failed 3 targeted attempt(s) (rounds 1, 2, 3); last failure: still bug.');
      expect(issues).toContain('- d: failed 3 targeted attempt(s) (rounds 1, 2, 3); last failure: still bug.');
    },
  );

  it('seed 004: stop_exhausted when no actionable fixes remain parks the still-failing tasks', async () => {
    const w = worker({}, [], { improve: () => ({ summary: 'no idea left', targets: [], changed: false }) });
    const result = await runControllerIteration(options(w));
    expect(result.outcome).toBe('completed');
    expect(result.state.stop_reason).toBe('stop_exhausted: no actionable fixes remain; still failing: b, c, d');
    expect(readFileSync(paths.exclusions, 'utf8')).toBe('b\nc\nd\n');
  });

  it(
    'seed 004: tasks already in cannot_handle_group.txt are not targeted and ' +
      'count as consciously parked for stop_success',
    async () => {
      mkdirSync(join(dir, 'eval', 'config'), { recursive: true });
      writeFileSync(paths.exclusions, 'd\n');
      let excludedSeen: readonly string[] = [];
      const base = worker({ b: 1, c: 1 });
      const w: RoundWorker = { ...base, improve: (ctx) => ((excludedSeen = ctx.excluded), base.improve(ctx)) };
      const result = await runControllerIteration(options(w));
      expect(excludedSeen).toEqual(['d']);
      expect(result.state.last_round).toMatchObject({ recommended_action: 'stop_success', targets: ['b', 'c'] });
    },
  );

  it('seed 004: the changelog gets exactly one entry per round', async () => {
    await runController(options(worker({ b: 1, c: 2 })));
    const log = readFileSync(paths.changelog, 'utf8');
    expect(log.match(/^## Round \d+$/gm)).toEqual(['## Round 1', '## Round 2', '## Round 3']);
    expect(log).toContain('- action: stop_exhausted');
    expect(log).toContain('- targets: c fixed (failed 1x), d failed (failed 2x)');
  });

  it(
    'seed 004: a round re-run after an interruption before loop_state.json ' +
      'was written counts its attempts once and keeps one changelog entry',
    async () => {
      mkdirSync(paths.changelog); // the changelog step fails after the scoreboard was written
      const err = await runControllerIteration(options(worker({ b: 1 }))).catch((e: unknown) => e);
      expect(isLoopError(err, 'STATE_CORRUPT')).toBe(true);
      expect((err as LoopError).message).toContain('changelog.md');
      expect((await readLoopStateFile(paths.loopState)).last_round).toBeNull();
      expect(failedAttempts(await readScoreboard(paths.scoreboard), 'c')).toBe(1);
      rmSync(paths.changelog, { recursive: true });
      writeFileSync(paths.changelog, '# autotune changelog\n\n## Round 1\n\n- half-written entry\n');
      for (const id of ['b', 'c', 'd']) writeFileSync(join(dir, 'code', id), 'bug');
      const result = await runControllerIteration(options(worker({ b: 1 })));
      expect(result.round).toBe(1);
      expect(failedAttempts(await readScoreboard(paths.scoreboard), 'c')).toBe(1);
      const log = readFileSync(paths.changelog, 'utf8');
      expect(log.match(/^## Round 1$/gm)).toHaveLength(1);
      expect(log).not.toContain('half-written');
    },
  );
});

import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, isLoopError, LoopError } from '@loop/core';
import {
  createRecordingCommitter,
  failedAttempts,
  initAutotune,
  readLoopStateFile,
  readScoreboard,
  resolveAutotunePaths,
  runController,
  runControllerIteration,
  type AutotuneControllerOptions,
  type AutotunePaths,
  type RoundWorker,
  type SyncCheck,
} from './index.js';

let dir: string;
let paths: AutotunePaths;
const clock = { now: () => Date.UTC(2025, 0, 1) };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loop-autotune-'));
  paths = (await initAutotune({ dir })).paths;
  mkdirSync(join(dir, 'code'));
  for (const id of ['a', 'b', 'c', 'd']) writeFileSync(join(dir, 'code', id), id === 'a' ? 'ok' : 'bug');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const code = (id: string) => readFileSync(join(dir, 'code', id), 'utf8');

/**
 * A stateless worker over files: task `<id>` passes when `code/<id>` is `ok`; `fixAt[id]` is the
 * attempt (1-based, counted from the scoreboard) that fixes it. `calls` records every step.
 */
function worker(
  fixAt: Record<string, number>,
  calls: string[] = [],
  hooks: Partial<Pick<RoundWorker, 'improve' | 'evaluate'>> = {},
): RoundWorker {
  const ids = ['a', 'b', 'c', 'd'];
  return {
    name: 'table',
    improve:
      hooks.improve ??
      (({ round, scoreboard, excluded }) => {
        calls.push(`improve ${round}`);
        const targets = ids.filter((id) => code(id) !== 'ok' && !excluded.includes(id));
        for (const id of targets)
          if ((fixAt[id] ?? Infinity) <= failedAttempts(scoreboard, id) + 1) writeFileSync(join(dir, 'code', id), 'ok');
        return { summary: `patch ${targets.join(' ') || 'nothing'}`, targets };
      }),
    evaluate:
      hooks.evaluate ??
      (({ round }) => {
        calls.push(`evaluate ${round}`);
        return {
          tasks: ids.map((id) => ({
            id,
            passed: code(id) === 'ok',
            detail: code(id) === 'ok' ? undefined : 'still bug',
          })),
        };
      }),
  };
}

const options = (w: RoundWorker, over: Partial<AutotuneControllerOptions> = {}): AutotuneControllerOptions => ({
  dir,
  worker: w,
  clock,
  ...over,
});
const snapshot = () =>
  Object.fromEntries(Object.values(paths).map((p) => [p, existsSync(p) ? readFileSync(p, 'utf8') : null]));

describe('seed 004 loop steps', () => {
  it('seed 004 steps 1-2: a complete loop_state.json is reported and the iteration exits without running a round or writing', async () => {
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
  });

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

  it('seed 004 step 7: on continue the iteration returns normally with status running and the round recorded', async () => {
    const result = await runControllerIteration(options(worker({ b: 1, c: 2, d: 2 })));
    expect(result.outcome).toBe('continue');
    const state = await readLoopStateFile(paths.loopState);
    expect(state).toMatchObject({
      mode: 'auto',
      status: 'running',
      stop_reason: null,
      last_round: { round: 1, recommended_action: 'continue', outcome: 'evaluated' },
    });
  });

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

  it('seed 004 steps 5-6: the stop decision is re-read from loop_state.json after the round, not taken from memory', async () => {
    // The round recommends continue; something else (here the artifacts commit hook) rewrites the file to stop_success.
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
  });

  it('seed 004: state lives only in files, so fresh options and a fresh worker each iteration reach the same end as runController', async () => {
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
  });
});

describe('seed 004 stop criteria and artifacts', () => {
  it('seed 004: "failed 3+ times" is computed from scoreboard.json, not memory, and forces stop_exhausted for that target', async () => {
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
  });

  it('seed 004: a target that failed twice and then got fixed does not stop the loop', async () => {
    const { final } = await runController(options(worker({ b: 3, c: 1, d: 1 })));
    expect(final.state.last_round).toMatchObject({ round: 3, recommended_action: 'stop_success' });
    expect(failedAttempts(await readScoreboard(paths.scoreboard), 'b')).toBe(2);
  });

  it('seed 004: stopping as exhausted appends the out-of-reach tasks to cannot_handle_group.txt and the parked rationale to issues.md', async () => {
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
  });

  it('seed 004: stop_exhausted when no actionable fixes remain parks the still-failing tasks', async () => {
    const w = worker({}, [], { improve: () => ({ summary: 'no idea left', targets: [], changed: false }) });
    const result = await runControllerIteration(options(w));
    expect(result.outcome).toBe('completed');
    expect(result.state.stop_reason).toBe('stop_exhausted: no actionable fixes remain; still failing: b, c, d');
    expect(readFileSync(paths.exclusions, 'utf8')).toBe('b\nc\nd\n');
  });

  it('seed 004: tasks already in cannot_handle_group.txt are not targeted and count as consciously parked for stop_success', async () => {
    mkdirSync(join(dir, 'eval', 'config'), { recursive: true });
    writeFileSync(paths.exclusions, 'd\n');
    let excludedSeen: readonly string[] = [];
    const base = worker({ b: 1, c: 1 });
    const w: RoundWorker = { ...base, improve: (ctx) => ((excludedSeen = ctx.excluded), base.improve(ctx)) };
    const result = await runControllerIteration(options(w));
    expect(excludedSeen).toEqual(['d']);
    expect(result.state.last_round).toMatchObject({ recommended_action: 'stop_success', targets: ['b', 'c'] });
  });

  it('seed 004: the changelog gets exactly one entry per round', async () => {
    await runController(options(worker({ b: 1, c: 2 })));
    const log = readFileSync(paths.changelog, 'utf8');
    expect(log.match(/^## Round \d+$/gm)).toEqual(['## Round 1', '## Round 2', '## Round 3']);
    expect(log).toContain('- action: stop_exhausted');
    expect(log).toContain('- targets: c fixed (failed 1x), d failed (failed 2x)');
  });

  it('seed 004: a round re-run after an interruption before loop_state.json was written counts its attempts once and keeps one changelog entry', async () => {
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
  });
});

describe('seed 004 step 4: sync check and commit policy', () => {
  it('seed 004 step 4: a failed sync check aborts the round as stale: no evaluation, no attempt counted, one changelog entry', async () => {
    const calls: string[] = [];
    const syncCheck: SyncCheck = {
      name: 'remote-rebuild',
      verify: () => ({ ok: false, reason: 'remote is at abc123, expected def456' }),
    };
    const before = readFileSync(paths.scoreboard, 'utf8');
    const result = await runControllerIteration(options(worker({ b: 1 }, calls), { syncCheck }));
    expect(calls).toEqual(['improve 1']);
    expect(result.outcome).toBe('continue');
    expect(result.state.last_round).toMatchObject({ round: 1, outcome: 'stale', recommended_action: 'continue' });
    expect(result.state.last_round?.reason).toContain('remote is at abc123');
    expect(readFileSync(paths.scoreboard, 'utf8')).toBe(before);
    expect(readFileSync(paths.changelog, 'utf8')).toContain('- outcome: stale');
  });

  it('seed 004 step 4: a sync check that throws is a stale round too, not a crash', async () => {
    const syncCheck: SyncCheck = {
      name: 'pull',
      verify: () => {
        throw new Error('ssh: connection refused');
      },
    };
    const result = await runControllerIteration(options(worker({ b: 1 }), { syncCheck }));
    expect(result.state.last_round).toMatchObject({ outcome: 'stale' });
    expect(result.state.last_round?.reason).toContain('ssh: connection refused');
  });

  it('seed 004 commit policy: code is committed as "feat(agent): autotune round N — <summary>" before the sync check, artifacts after analysis', async () => {
    const order: string[] = [];
    const committer = createRecordingCommitter((r) => void order.push(`commit ${r.kind}`));
    const syncCheck: SyncCheck = { name: 's', verify: () => (order.push('sync'), { ok: true }) };
    const base = worker({ b: 1, c: 1, d: 1 });
    const w: RoundWorker = { ...base, evaluate: (ctx) => (order.push('evaluate'), base.evaluate(ctx)) };
    await runControllerIteration(options(w, { committer, syncCheck }));
    expect(order).toEqual(['commit code', 'sync', 'evaluate', 'commit artifacts', 'commit artifacts']);
    const [codeCommit, artifacts, completion] = committer.commits;
    expect(codeCommit).toEqual({
      kind: 'code',
      round: 1,
      message: 'feat(agent): autotune round 1 — patch b c d',
      files: [],
    });
    expect(artifacts?.message).toBe('chore(autotune): round 1 artifacts — stop_success');
    expect(artifacts?.files).toEqual([paths.loopState, paths.scoreboard, paths.changelog]);
    expect(completion?.message).toMatch(/^chore\(autotune\): loop complete — stop_success: /);
    expect(completion?.files).toEqual([paths.loopState]);
  });

  it('seed 004 commit policy: the exhausted round commits cannot_handle_group.txt and issues.md with the artifacts', async () => {
    const committer = createRecordingCommitter();
    await runController(options(worker({}), { committer }));
    const last = committer.commits.filter((c) => c.kind === 'artifacts' && c.round === 3)[0];
    expect(last?.files).toEqual([paths.loopState, paths.scoreboard, paths.exclusions, paths.issues, paths.changelog]);
  });

  it('seed 004 commit policy: a round without code changes makes no code commit', async () => {
    const committer = createRecordingCommitter();
    await runControllerIteration(
      options(worker({}, [], { improve: () => ({ summary: 'nothing', targets: ['b'], changed: false }) }), {
        committer,
      }),
    );
    expect(committer.commits.map((c) => c.kind)).toEqual(['artifacts']);
  });
});

describe('control files: validation, atomic writes, lock', () => {
  const cases: Array<[string, (p: AutotunePaths) => void, RegExp, string]> = [
    [
      'loop_state.json is not JSON',
      (p) => writeFileSync(p.loopState, '{ "mode": '),
      /loop_state\.json: field \(json\)/,
      '(json)',
    ],
    [
      'loop_state.json lacks mode',
      (p) => writeFileSync(p.loopState, JSON.stringify({ status: 'running', last_round: null, stop_reason: null })),
      /loop_state\.json: field mode:/,
      'mode',
    ],
    [
      'last_round.recommended_action is unknown',
      (p) =>
        writeFileSync(
          p.loopState,
          JSON.stringify({
            mode: 'auto',
            status: 'running',
            stop_reason: null,
            last_round: {
              round: 1,
              recommended_action: 'stop_maybe',
              outcome: 'evaluated',
              reason: '',
              summary: '',
              targets: [],
              parked: [],
              finished_at: 'x',
            },
          }),
        ),
      /loop_state\.json: field last_round\.recommended_action:/,
      'last_round.recommended_action',
    ],
    [
      'loop_state.json is missing',
      (p) => rmSync(p.loopState),
      /loop_state\.json: field \(file\): the file is missing/,
      '(file)',
    ],
    [
      'scoreboard.json has a bad attempt',
      (p) =>
        writeFileSync(
          p.scoreboard,
          JSON.stringify({
            version: 1,
            tasks: {},
            targets: { x: { attempts: [{ round: 1, outcome: 'meh', at: 'x' }] } },
          }),
        ),
      /scoreboard\.json: field targets\.x\.attempts\.0\.outcome:/,
      'targets.x.attempts.0.outcome',
    ],
    ['scoreboard.json is missing', (p) => rmSync(p.scoreboard), /scoreboard\.json: field \(file\)/, '(file)'],
  ];
  it.each(cases)(
    'a malformed or missing control file (%s) throws STATE_CORRUPT naming the file and field, and nothing is overwritten',
    async (_name, breakIt, message, field) => {
      breakIt(paths);
      const before = snapshot();
      const calls: string[] = [];
      const err = await runControllerIteration(options(worker({ b: 1 }, calls))).catch((e: unknown) => e);
      expect(isLoopError(err, 'STATE_CORRUPT')).toBe(true);
      expect((err as LoopError).message).toMatch(message);
      expect((err as LoopError).details.field).toBe(field);
      expect(calls).toEqual([]);
      expect(snapshot()).toEqual(before);
      expect(existsSync(`${paths.loopState}.lock`)).toBe(false);
    },
  );

  it('initAutotune refuses to overwrite a malformed loop_state.json', async () => {
    writeFileSync(paths.loopState, '{}');
    await expect(initAutotune({ dir })).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
    expect(readFileSync(paths.loopState, 'utf8')).toBe('{}');
  });

  it('every file write is atomic: a run leaves no temp files next to the control files', async () => {
    await runController(options(worker({ b: 1 })));
    const meta = readdirSync(join(dir, 'projects/autotune/meta'));
    expect(meta.sort()).toEqual(['changelog.md', 'issues.md', 'loop_state.json', 'scoreboard.json']);
    expect(readdirSync(join(dir, 'eval/config'))).toEqual(['cannot_handle_group.txt']);
  });

  it('another iteration holding the workspace gives LOCK_HELD and no writes', async () => {
    const lock = await acquireLock({ path: paths.loopState });
    try {
      const before = snapshot();
      await expect(runControllerIteration(options(worker({})))).rejects.toMatchObject({ code: 'LOCK_HELD' });
      expect(snapshot()).toEqual(before);
    } finally {
      await lock.release();
    }
  });

  it('invalid options throw CONFIG_INVALID naming the field', async () => {
    await expect(runControllerIteration({ dir: 'relative', worker: {} as RoundWorker })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/dir: dir must be an absolute path.*worker: must be a RoundWorker/),
    });
  });

  it('a worker that throws gives PROPOSER_FAILED and leaves last_round as it was, so the next iteration runs the round again', async () => {
    const w = worker({}, [], {
      improve: () => {
        throw new Error('agent crashed');
      },
    });
    await expect(runControllerIteration(options(w))).rejects.toMatchObject({
      code: 'PROPOSER_FAILED',
      message: expect.stringContaining('agent crashed'),
    });
    const state = await readLoopStateFile(paths.loopState);
    expect(state).toMatchObject({ status: 'running', last_round: null });
    expect((await runControllerIteration(options(worker({ b: 1 })))).round).toBe(1);
  });

  it('resolveAutotunePaths puts the meta files in the artifact workspace and the exclusions file in the app repository (seed 004 key files)', () => {
    expect(resolveAutotunePaths('/app', '/art')).toEqual({
      loopState: '/art/projects/autotune/meta/loop_state.json',
      scoreboard: '/art/projects/autotune/meta/scoreboard.json',
      changelog: '/art/projects/autotune/meta/changelog.md',
      issues: '/art/projects/autotune/meta/issues.md',
      exclusions: '/app/eval/config/cannot_handle_group.txt',
    });
  });
});

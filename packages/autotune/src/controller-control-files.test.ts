import { readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopError, LoopError } from '@loop/core';
import { acquireLock } from '@loop/core/files';
import {
  initAutotune,
  readLoopStateFile,
  resolveAutotunePaths,
  runController,
  runControllerIteration,
  type AutotunePaths,
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
    'a malformed or missing control file (%s) throws STATE_CORRUPT naming ' +
      'the file and field, and nothing is overwritten',
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

  it(
    'a worker that throws gives PROPOSER_FAILED and leaves last_round as it ' +
      'was, so the next iteration runs the round again',
    async () => {
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
    },
  );

  it(
    'resolveAutotunePaths puts the meta files in the artifact workspace and ' +
      'the exclusions file in the app repository (seed 004 key files)',
    () => {
      expect(resolveAutotunePaths('/app', '/art')).toEqual({
        loopState: '/art/projects/autotune/meta/loop_state.json',
        scoreboard: '/art/projects/autotune/meta/scoreboard.json',
        changelog: '/art/projects/autotune/meta/changelog.md',
        issues: '/art/projects/autotune/meta/issues.md',
        exclusions: '/app/eval/config/cannot_handle_group.txt',
      });
    },
  );
});

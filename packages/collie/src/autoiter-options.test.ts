import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { StopPolicy } from '@loop/core';
import { createAutoiter, type AutoiterOptions } from './autoiter.js';
import { FIXTURE_RUN, fixedAsker, fixtureAutoiter, fixtureDirs } from './internal/autoiter-fixture.js';
import { readRunState } from './run-state.js';

/** The fixture's options without its flat stateRoot / maxIterations, so a test can give them grouped. */
function baseOptions(): AutoiterOptions {
  const { stateRoot: _s, maxIterations: _m, ...rest } = fixtureAutoiter(dirs).options;
  return rest;
}

/** Runs a controller to its end; returns its state.json and the state root it wrote under. */
async function runToEnd(options: AutoiterOptions) {
  const a = createAutoiter(options);
  await a.run();
  return { state: await readRunState(a.paths.run(FIXTURE_RUN).state), projectDir: a.paths.projectDir };
}

let dirs: ReturnType<typeof fixtureDirs>;
beforeEach(() => (dirs = fixtureDirs()));
afterEach(() => dirs.cleanup());

describe('createAutoiter options', () => {
  it(
    'an invalid scalarExtraction regex is CONFIG_INVALID at creation, naming ' +
      'the field (not after Stage 0 spent a dispatch)',
    () => {
      expect(() => fixtureAutoiter(dirs, { scalarExtraction: '([a-z' })).toThrow(
        expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('scalarExtraction') }),
      );
    },
  );

  it('an unknown option (a misspelling) is CONFIG_INVALID naming it, never silently ignored', () => {
    expect(() => fixtureAutoiter(dirs, { maxIteration: 3 } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('maxIteration') }),
    );
  });

  it(
    'a trigger whose output never matches scalar_extraction gets a warning ' +
      'tick and user-log entry (once per log), and the scalar is none',
    async () => {
      const { a, lines } = fixtureAutoiter(dirs, {
        asker: fixedAsker({ Q1: 'echo "hello, no number here"' }),
        maxIterations: 1,
      });
      await a.run();
      const warnings = lines.filter((l) => l.includes('Warning: trigger.scalar_extraction'));
      expect(warnings).toEqual([
        `[autoiter ${FIXTURE_RUN}] iter-1 Warning: trigger.scalar_extraction ` +
          `/^score:\\s*(\\S+)/ matched no line of iter-1/raw.log: the scalar is ` +
          `none (SC2's threshold and SC3 cannot use it). Check the trigger's output ` +
          `or the regex.`,
        `[autoiter ${FIXTURE_RUN}] iter-1 Warning: trigger.scalar_extraction ` +
          `/^score:\\s*(\\S+)/ matched no line of iter-1/rerun.log: the scalar is ` +
          `none (SC2's threshold and SC3 cannot use it). Check the trigger's output ` +
          `or the regex.`,
      ]);
      expect(
        readFileSync(a.paths.run(FIXTURE_RUN).userLog, 'utf8').split('Warning: trigger.scalar_extraction'),
      ).toHaveLength(3);
    },
  );

  it(
    'grouped options are read: files.stateRoot holds the run, ' +
      'stop.maxIterations caps it (SC1), stop.policy and stop.policyStatus end ' +
      'it',
    async () => {
      const root = join(dirs.root, 'grouped');
      const capped = await runToEnd({ ...baseOptions(), files: { stateRoot: root }, stop: { maxIterations: 2 } });
      expect(capped.projectDir).toBe(join(root, 'autoiter', 'proj'));
      expect(capped.state).toMatchObject({ iter: 2, status: 'budget_exhausted' });
      const atOnce: StopPolicy = { name: 'at-once', check: () => ({ reason: 'user', message: 'enough' }) };
      const stopped = await runToEnd({
        ...baseOptions(),
        files: { stateRoot: join(dirs.root, 'policy') },
        stop: { policy: [atOnce], policyStatus: 'escalated' },
        parallel: { deepVerify: 2 },
        recovery: { lockStaleMs: 10_000 },
        run: { killGraceMs: 100 },
        score: { scalarExtraction: '^score:\\s*(\\S+)' },
        keep: { guards: [] },
      });
      expect(stopped.state).toMatchObject({ iter: 1, status: 'escalated', stop_reason: 'user: enough' });
    },
  );

  it(
    'the deprecated flat names still work for one version: stateRoot, ' + 'maxIterations and a flat stop policy list',
    async () => {
      const root = join(dirs.root, 'flat');
      const capped = await runToEnd({ ...baseOptions(), stateRoot: root, maxIterations: 2 });
      expect(capped.projectDir).toBe(join(root, 'autoiter', 'proj'));
      expect(capped.state).toMatchObject({ iter: 2, status: 'budget_exhausted' });
      const atOnce: StopPolicy = { name: 'at-once', check: () => ({ reason: 'user', message: 'enough' }) };
      const stopped = await runToEnd({
        ...baseOptions(),
        stateRoot: join(dirs.root, 'flat-policy'),
        stop: [atOnce],
        userStopStatus: 'escalated',
      });
      expect(stopped.state).toMatchObject({ iter: 1, status: 'escalated', stop_reason: 'user: enough' });
    },
  );

  it(
    'a flat name and its grouped place at once is CONFIG_INVALID naming both ' +
      '(maxIterations and stop.maxIterations)',
    () => {
      const both = { ...baseOptions(), maxIterations: 2, stop: { maxIterations: 3 } };
      expect(() => createAutoiter(both)).toThrow(
        expect.objectContaining({
          code: 'CONFIG_INVALID',
          message: expect.stringMatching(/maxIterations and stop\.maxIterations are both set/),
        }),
      );
      expect(() =>
        createAutoiter({ ...baseOptions(), keepPolicy: undefined, guards: [], keep: { guards: [] } }),
      ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('keep.guards') }));
    },
  );

  it('an unknown key inside a group is CONFIG_INVALID naming its path', () => {
    expect(() => createAutoiter({ ...baseOptions(), stop: { maxIteration: 3 } as never })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('maxIteration') }),
    );
  });
});

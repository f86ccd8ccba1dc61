import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_RUN, fixedAsker, fixtureAutoiter, fixtureDirs } from '../internal/autoiter-fixture.js';
import { readRunState } from '../run-state.js';

let dirs: ReturnType<typeof fixtureDirs>;
beforeEach(() => (dirs = fixtureDirs()));
afterEach(() => dirs.cleanup());

describe('§3.5 Branch B step 5: a failed prepare, interactive', () => {
  it(
    'interactive: "Prepare failed: [X]. Fix material and retry, or abort?" — ' +
      'retry runs prepare again on the next step, and a pass initialises ' +
      'state.json',
    async () => {
      const questions: string[] = [];
      let attempts = 0;
      const preparer = {
        name: 'flaky',
        prepare: () => (
          (attempts += 1),
          attempts === 1
            ? { ok: false, report: '# Prepare report\nfixtures/data.csv is missing\n' }
            : { ok: true, report: '# Prepare report\nPASS\n' }
        ),
      };
      const asker = fixedAsker({ Q5: 'no' }, (q, choices) => (questions.push(`${q} [${choices.join('/')}]`), 'retry'));
      const { a, notes } = fixtureAutoiter(dirs, { asker, preparer });
      await a.step();
      expect(await a.step()).toMatchObject({ kind: 'prepare-retry', runId: FIXTURE_RUN });
      expect(questions).toEqual([
        'Prepare failed: fixtures/data.csv is missing. Fix material and retry, or abort? [retry/abort]',
      ]);
      expect(existsSync(a.paths.run(FIXTURE_RUN).state)).toBe(false);
      expect(await a.step()).toEqual({ kind: 'recovered', runId: FIXTURE_RUN, status: 'running' });
      expect(attempts).toBe(2);
      expect(notes).toEqual([]);
      expect(existsSync(a.paths.run(FIXTURE_RUN).prepareReport)).toBe(true);
    },
  );

  it(
    'interactive abort: the run is escalated with prepare_failed and ' + 'notified, exactly like a queued run',
    async () => {
      const asker = fixedAsker({ Q5: 'no' }, () => 'abort');
      const { a, notes } = fixtureAutoiter(dirs, {
        asker,
        preparer: { name: 'fail', prepare: () => ({ ok: false, report: 'no data' }) },
      });
      await a.step();
      expect(await a.step()).toEqual({ kind: 'recovered', runId: FIXTURE_RUN, status: 'escalated' });
      expect(notes.map((n) => n.event)).toEqual(['prepare_failed']);
      expect(await readRunState(a.paths.run(FIXTURE_RUN).state)).toMatchObject({
        status: 'escalated',
        stop_reason: 'prepare_failed',
      });
    },
  );
});

describe('controller lock', () => {
  it(
    'a second controller on the same project gets LOCK_HELD while the first ' +
      'is inside a step, and can step once it is done',
    async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      const first = fixtureAutoiter(dirs, {
        createHarness: () =>
          ({
            name: 'gated',
            run: async () => (
              entered(),
              await gate,
              { exitCode: 0, signal: null, timedOut: false, durationMs: 1, logPath: '' }
            ),
          }) as never,
      });
      const second = fixtureAutoiter(dirs);
      for (let i = 0; i < 3; i += 1) await first.a.step();
      const running = first.a.step(); // Stage 2, held inside the trigger
      await inside;
      await expect(second.a.step()).rejects.toMatchObject({ code: 'LOCK_HELD' });
      release();
      await running;
      expect(await second.a.step()).toMatchObject({ kind: 'stage', stage: 'stage3' });
    },
  );
});

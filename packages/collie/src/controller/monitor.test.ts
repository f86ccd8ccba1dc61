import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIXTURE_RUN, fixedAsker, fixtureAutoiter, fixtureDirs } from '../internal/autoiter-fixture.js';
import { readRunState } from '../run-state.js';

let dirs: ReturnType<typeof fixtureDirs>;
beforeEach(() => (dirs = fixtureDirs()));
afterEach(() => dirs.cleanup());

/** Gone = no /proc entry, or a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('Stage 2/3 monitor and the Stage 3.2 kill step', () => {
  it(
    'a blocking pattern seen in raw.log while the trigger runs kills its ' +
      'whole process group (grandchild included) and sends the iteration to the ' +
      'recovery ladder',
    async () => {
      // The trigger starts a grandchild that would outlive it, prints a fatal line, then waits for a minute.
      const trigger =
        "sh -c 'echo $$ > grandchild.pid.tmp; mv grandchild.pid.tmp " +
        "grandchild.pid; exec sleep 60' & until [ -f grandchild.pid ]; do :; " +
        'done; echo "step 1 ok"; echo "FATAL: out of memory"; wait';
      const { a, lines } = fixtureAutoiter(dirs, {
        asker: fixedAsker({ Q1: trigger }),
        blockingPatterns: ['^FATAL:'],
        monitorIntervalMs: 20,
        killGraceMs: 200,
      });
      for (let i = 0; i < 3; i += 1) await a.step(); // Stage 0, Branch B, Stage 1
      expect(await a.step()).toMatchObject({ kind: 'stage', stage: 'stage2' });
      const ip = a.paths.run(FIXTURE_RUN).iter(1);
      const raw = readFileSync(ip.rawLog, 'utf8');
      expect(raw).toContain(
        'BLOCKING: FATAL: out of memory\nKILLED: trigger process group stopped ' +
          '(SIGTERM, SIGKILL after 200 ms)\nEXIT_CODE:',
      );
      expect(raw).not.toContain('EXIT_CODE:0');
      const grandchild = Number(readFileSync(`${dirs.project}/grandchild.pid`, 'utf8'));
      await vi.waitFor(() => expect(alive(grandchild)).toBe(false), { timeout: 5000, interval: 20 });
      expect(
        lines.some((l) =>
          l.includes('Stage 2 → blocking issue seen while running, trigger killed: FATAL: out of memory'),
        ),
      ).toBe(true);
      await a.step(); // Stage 3: the non-zero exit starts the ladder even though the observer saw nothing blocking
      expect(await readRunState(a.paths.run(FIXTURE_RUN).state)).toMatchObject({
        stage: 'recover',
        ladder: { tier: 'fast', attempts: [] },
      });
    },
  );

  it('without blocking patterns the trigger is never killed by the monitor: it runs to its end', async () => {
    const { a } = fixtureAutoiter(dirs, {
      asker: fixedAsker({ Q1: 'echo "FATAL: not blocking here"; echo "score: 3"' }),
    });
    for (let i = 0; i < 4; i += 1) await a.step();
    expect(readFileSync(a.paths.run(FIXTURE_RUN).iter(1).rawLog, 'utf8')).toBe(
      'FATAL: not blocking here\nscore: 3\nEXIT_CODE:0\n',
    );
  });

  it('invalid blocking patterns are rejected at creation, naming the field', () => {
    expect(() => fixtureAutoiter(dirs, { blockingPatterns: ['(unclosed'] })).toThrow(/blockingPatterns\.0/);
  });
});

import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_RUN, fixedAsker, fixtureAutoiter, fixtureDirs } from './internal/autoiter-fixture.js';

let dirs: ReturnType<typeof fixtureDirs>;
beforeEach(() => (dirs = fixtureDirs()));
afterEach(() => dirs.cleanup());

describe('createAutoiter options', () => {
  it('an invalid scalarExtraction regex is CONFIG_INVALID at creation, naming the field (not after Stage 0 spent a dispatch)', () => {
    expect(() => fixtureAutoiter(dirs, { scalarExtraction: '([a-z' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('scalarExtraction') }),
    );
  });

  it('an unknown option (a misspelling) is CONFIG_INVALID naming it, never silently ignored', () => {
    expect(() => fixtureAutoiter(dirs, { maxIteration: 3 } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('maxIteration') }),
    );
  });

  it('a trigger whose output never matches scalar_extraction gets a warning tick and user-log entry (once per log), and the scalar is none', async () => {
    const { a, lines } = fixtureAutoiter(dirs, {
      asker: fixedAsker({ Q1: 'echo "hello, no number here"' }),
      maxIterations: 1,
    });
    await a.run();
    const warnings = lines.filter((l) => l.includes('Warning: trigger.scalar_extraction'));
    expect(warnings).toEqual([
      `[autoiter ${FIXTURE_RUN}] iter-1 Warning: trigger.scalar_extraction /^score:\\s*(\\S+)/ matched no line of iter-1/raw.log: the scalar is none (SC2's threshold and SC3 cannot use it). Check the trigger's output or the regex.`,
      `[autoiter ${FIXTURE_RUN}] iter-1 Warning: trigger.scalar_extraction /^score:\\s*(\\S+)/ matched no line of iter-1/rerun.log: the scalar is none (SC2's threshold and SC3 cannot use it). Check the trigger's output or the regex.`,
    ]);
    expect(
      readFileSync(a.paths.run(FIXTURE_RUN).userLog, 'utf8').split('Warning: trigger.scalar_extraction'),
    ).toHaveLength(3);
  });
});

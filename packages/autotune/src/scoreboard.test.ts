import { expect, it } from 'vitest';
import { failedAttempts, scoreboardBefore } from './index.js';
import { emptyScoreboard, exhaustedTargets, recordRound, scoreboardSchema } from './scoreboard.js';

it(
  'seed 004: the scoreboard records one attempt per targeted improvement ' +
    'per round, and a re-run round replaces its attempt',
  () => {
    let b = recordRound(emptyScoreboard(), 1, [{ target: 'x', outcome: 'failed' }], [{ id: 'x', passed: false }], 't1');
    b = recordRound(b, 1, [{ target: 'x', outcome: 'failed' }], [{ id: 'x', passed: false }], 't1b');
    b = recordRound(b, 2, [{ target: 'x', outcome: 'failed' }], [{ id: 'x', passed: false, detail: 'boom' }], 't2');
    expect(b.targets.x?.attempts.map((a) => [a.round, a.at])).toEqual([
      [1, 't1b'],
      [2, 't2'],
    ]);
    expect(b.tasks.x).toEqual({ passed: false, round: 2, detail: 'boom' });
    expect(failedAttempts(b, 'x')).toBe(2);
    expect(scoreboardSchema.parse(b)).toEqual(b);
  },
);

it(
  'seed 004: "failed 3+ times" counts failed attempts from the scoreboard ' +
    'and ignores targets whose task now passes',
  () => {
    let b = emptyScoreboard();
    for (const round of [1, 2, 3])
      b = recordRound(
        b,
        round,
        [
          { target: 'x', outcome: 'failed' },
          { target: 'y', outcome: 'failed' },
        ],
        [
          { id: 'x', passed: false },
          { id: 'y', passed: false },
        ],
        't',
      );
    expect(exhaustedTargets(b)).toEqual(['x', 'y']);
    b = recordRound(b, 4, [{ target: 'y', outcome: 'fixed' }], [{ id: 'y', passed: true }], 't');
    expect(exhaustedTargets(b)).toEqual(['x']);
    expect(exhaustedTargets(b, 4)).toEqual([]);
  },
);

it(
  'issue 11 fault 8: scoreboardBefore(round) drops the attempts of that ' +
    'round and later, keeping earlier ones and the task statuses',
  () => {
    let b = recordRound(emptyScoreboard(), 1, [{ target: 'x', outcome: 'failed' }], [{ id: 'x', passed: false }], 't1');
    b = recordRound(
      b,
      2,
      [
        { target: 'x', outcome: 'failed' },
        { target: 'y', outcome: 'fixed' },
      ],
      [{ id: 'y', passed: true }],
      't2',
    );
    const before = scoreboardBefore(b, 2);
    expect(before.targets).toEqual({ x: { attempts: [{ round: 1, outcome: 'failed', at: 't1' }] } });
    expect(before.tasks).toEqual(b.tasks);
    expect(scoreboardBefore(b, 1).targets).toEqual({});
  },
);

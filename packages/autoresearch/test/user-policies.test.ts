import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { userPolicies } from '@loop/internal-test-utils';
import { runPass, type AutoresearchProposer } from '../src/index.js';
import { parseResultsTsv } from '../src/results-tsv.js';
import { makeWorkspace, passOptions, type Workspace } from './helpers.js';

let ws: Workspace;
afterEach(() => ws?.cleanup());

/** Sets src/score.ts to `values[iteration - 1]`, described `value -> <v>` (the user guard bans `-> 4`). */
function byIteration(values: number[]): AutoresearchProposer {
  return {
    name: 'by-iteration',
    plan: ({ iteration }) => ({ description: `value -> ${values[iteration - 1]}`, files: ['src/score.ts'] }),
    apply: (_idea, { iteration }) => ws.write('src/score.ts', `export const value = ${values[iteration - 1]};\n`),
  };
}

describe(
  'one user-written KeepPolicy, StopPolicy and Guard work unchanged in an ' +
    'autoresearch pass (issue 11: one engine)',
  () => {
    it(
      'the user keep policy decides every scored candidate, the user guard ' +
        'rejects before the run with its own status, the user stop policy stops ' +
        'the pass, and seed 002 still restores best and writes state.json last',
      async () => {
        ws = makeWorkspace();
        const { keepPolicy, stop, guard, calls } = userPolicies({ minGain: 2, patience: 2 });
        const o = passOptions(ws, [], {
          autoresearch: { ar_function: { max_iterations: 10, max_consecutive_reverts: 5 } },
        });
        const r = await runPass({ ...o, proposer: byIteration([6, 8, 4, 9]), keepPolicy, stop, guards: [guard] });
        const rows = parseResultsTsv(readFileSync(ws.resultsPath, 'utf8')).rows;
        // 5 -> 6: gain 1 < 2 reverted; 6 -> 8: kept; -> 4: banned by the guard, never scored; 8 -> 9: gain 1 reverted;
        // 2
        // without a keep: stop
        expect(rows.map((x) => `${x.iter}:${x.status}:${x.columns.composite}`)).toEqual([
          '0:baseline:5.00',
          '1:reverted:6.00',
          '2:kept:8.00',
          '3:banned:-',
          '4:reverted:9.00',
        ]);
        expect(calls.decide).toBe(3);
        expect(r).toMatchObject({ stopReason: 'user-plateau', bestComposite: 8 });
        expect(o.lines[3]).toBe('iter 3 | banned | - (Δ -) | value -> 4 (user-ban: banned by the user)');
        expect(ws.value()).toBe(8);
        expect(JSON.parse(readFileSync(ws.statePath, 'utf8')).autoresearch.function).toMatchObject({
          stop_reason: 'user-plateau',
          best_score: 8,
        });
      },
    );

    it(
      'a user keep policy cannot keep a test gone green to red: the Tier-1 ' +
        'gates wrap it (seed 002: reverted-redtest regardless of the quality ' +
        'sub-score)',
      async () => {
        ws = makeWorkspace();
        const { keepPolicy } = userPolicies({ minGain: 0 });
        const o = passOptions(ws, []);
        await runPass({ ...o, config: { ...o.config, maxIterations: 1 }, proposer: byIteration([-9]), keepPolicy });
        expect(parseResultsTsv(readFileSync(ws.resultsPath, 'utf8')).rows.map((x) => x.status)).toEqual([
          'baseline',
          'reverted-redtest',
        ]);
        expect(ws.value()).toBe(5);
      },
    );
  },
);

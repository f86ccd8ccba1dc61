import { afterEach, describe, expect, it } from 'vitest';
import type { IterationRecord, StopPolicy } from '@loop/core';
import { runPass, type AutoresearchProposer } from '../src/index.js';
import { type PassCandidateData } from '../src/pass-engine.js';
import { makeWorkspace, passOptions, type Workspace } from './helpers.js';

let ws: Workspace;
afterEach(() => ws?.cleanup());

/** Sets src/score.ts to `values[iteration - 1]`; its apply says what it did. */
function byIteration(values: number[]): AutoresearchProposer {
  return {
    name: 'by-iteration',
    plan: ({ iteration }) => ({ description: `plan ${iteration}`, files: ['src/score.ts'] }),
    apply: (_idea, { iteration }) => {
      ws.write('src/score.ts', `export const value = ${values[iteration - 1]};\n`);
      return { description: `value -> ${values[iteration - 1]}` };
    },
  };
}

describe(
  'one record per candidate (issue 26): a pass keeps its facts in the ' +
    "engine's IterationRecord.data, not in maps beside it",
  () => {
    it(
      'every scored row the engine holds carries the applied idea ' +
        "(data.autoresearch) and the harness's full score with its Tier-1 gates " +
        '(data.autoresearchScore)',
      async () => {
        ws = makeWorkspace();
        let seen: readonly IterationRecord[] = [];
        const watch: StopPolicy = { name: 'watch', check: (s) => void (seen = s.history) };
        const o = passOptions(ws, []);
        const r = await runPass({
          ...o,
          config: { ...o.config, maxIterations: 2 },
          proposer: byIteration([7, 6]),
          stop: watch,
        });
        expect(seen.map((x) => `${x.iteration}:${x.label ?? x.status}`)).toEqual([
          '0:baseline',
          '1:kept',
          '2:reverted',
        ]);
        const data = seen.slice(1).map((x) => x.data as PassCandidateData);
        expect(data.map((d) => d.autoresearch?.idea.description)).toEqual(['value -> 7', 'value -> 6']);
        expect(data.map((d) => d.autoresearchScore)).toEqual([
          {
            composite: 7,
            dimensions: { quality: 7, pass_rate: 1, coverage: 90 },
            gates: { testsGreen: true, coverageOk: true, coveragePct: 90 },
          },
          {
            composite: 6,
            dimensions: { quality: 6, pass_rate: 1, coverage: 90 },
            gates: { testsGreen: true, coverageOk: true, coveragePct: 90 },
          },
        ]);
        // The best version's gates in the result come from its record.
        expect(r.bestGates).toEqual({ testsGreen: true, coverageOk: true, coveragePct: 90 });
      },
    );
  },
);

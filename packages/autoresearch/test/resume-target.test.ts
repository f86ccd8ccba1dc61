import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runPass, type PassHarness, type ScoreContext } from '../src/index.js';
import { parseResultsTsv } from '../src/results-tsv.js';
import {
  makeWorkspace,
  passOptions,
  scriptedProposer,
  steppingClock,
  valueHarness,
  type Workspace,
} from './helpers.js';

let ws: Workspace;
afterEach(() => ws?.cleanup());

const statuses = () => parseResultsTsv(readFileSync(ws.resultsPath, 'utf8')).rows.map((r) => r.status);
const state = () => JSON.parse(readFileSync(ws.statePath, 'utf8'));

/**
 * Runs a first pass that keeps `to` and is interrupted right after the keep (human interrupt once its chat line
 * printed).
 */
async function interruptedAfterKeep(to: number, mode: 'function' | 'design' = 'function') {
  const ac = new AbortController();
  const o = passOptions(ws, [{ to }], { mode });
  const r = await runPass({
    ...o,
    signal: ac.signal,
    output: (l) => {
      if (l.startsWith('iter 1 | kept')) ac.abort();
    },
  });
  expect(r.stopReason).toBe('aborted');
  expect(statuses()).toEqual(['baseline', 'kept']);
}

/** The value harness with switchable coverage gate and a log of resume checks. */
function gatedHarness(
  opts: { coverageOk: () => boolean; crashOnResume?: boolean },
  calls: ScoreContext[],
): PassHarness {
  const inner = valueHarness(ws, 'function');
  return {
    ...inner,
    score: async (ctx) => {
      calls.push(ctx);
      if (ctx.resumeCheck && opts.crashOnResume) throw new Error('could not run tests');
      const s = await inner.score(ctx);
      const coverageOk = opts.coverageOk();
      return { ...s, composite: coverageOk ? s.composite : 0, gates: { ...s.gates!, coverageOk } };
    },
  };
}

describe(
  'target met re-checked right after a resume (seed 002 stop conditions: ' +
    '"for function the composite ≥ target with all Tier-1 gates green"; setup ' +
    'step 4: resume from the next iter)',
  () => {
    it(
      'seed 002 resume + target met: results.tsv carries no Tier-1 gate ' +
        'results, so the harness re-runs once on the restored best; a best ≥ ' +
        'kpi_target with green gates stops target-met before any new iteration',
      async () => {
        ws = makeWorkspace();
        await interruptedAfterKeep(9.6);
        const calls: ScoreContext[] = [];
        const o = passOptions(ws, [{ to: 9.9 }], { clock: steppingClock(Date.UTC(2026, 10, 30, 6)) });
        const r = await runPass({ ...o, harness: gatedHarness({ coverageOk: () => true }, calls) });
        expect(r).toMatchObject({ resumed: true, stopReason: 'target-met', iterationsThisRun: 0, bestComposite: 9.6 });
        expect(calls.map((c) => c.resumeCheck)).toEqual([true]);
        expect(r.resumeCheck?.gates).toEqual({ testsGreen: true, coverageOk: true, coveragePct: 90 });
        expect(statuses()).toEqual(['baseline', 'kept']);
        expect(state().autoresearch.function).toMatchObject({
          stop_reason: 'target-met',
          best_gates: { testsGreen: true, coverageOk: true },
        });
        expect(ws.value()).toBe(9.6);
      },
    );

    it(
      'seed 002 resume + target met: gates are never assumed green: a restored ' +
        'best ≥ kpi_target whose re-measured coverage gate is red does not stop ' +
        'target-met, the pass continues from the next iter',
      async () => {
        ws = makeWorkspace();
        await interruptedAfterKeep(9.6);
        const calls: ScoreContext[] = [];
        const o = passOptions(ws, [{ to: 9.9 }], { clock: steppingClock(Date.UTC(2026, 10, 30, 6)) });
        const r = await runPass({
          ...o,
          config: { ...o.config, maxIterations: 2 },
          harness: gatedHarness({ coverageOk: () => false }, calls),
        });
        expect(r.resumeCheck?.gates?.coverageOk).toBe(false);
        expect(r.stopReason).toBe('max-iterations');
        expect(r.iterationsThisRun).toBe(1);
        expect(statuses()).toEqual(['baseline', 'kept', 'reverted']);
      },
    );

    it(
      'seed 002 resume + target met: a re-check that crashes leaves the target ' +
        'unmet (no gates measured) and the pass goes on; the error is reported in ' +
        'resumeCheck',
      async () => {
        ws = makeWorkspace();
        await interruptedAfterKeep(9.6);
        const o = passOptions(ws, [{ to: 9.9 }], { clock: steppingClock(Date.UTC(2026, 10, 30, 6)) });
        const r = await runPass({ ...o, harness: gatedHarness({ coverageOk: () => true, crashOnResume: true }, []) });
        expect(r.resumeCheck).toEqual({ error: 'could not run tests' });
        expect(statuses()).toEqual(['baseline', 'kept', 'kept']);
        expect(r.stopReason).toBe('target-met');
        expect(ws.value()).toBe(9.9);
      },
    );

    it(
      'seed 002 resume + target met (design: every KPI dimension ≥ ' +
        'kpi_target): the dimensions come from results.tsv, so the resumed pass ' +
        'stops target-met without re-scoring',
      async () => {
        ws = makeWorkspace();
        await interruptedAfterKeep(9.6, 'design');
        let scored = 0;
        const o = passOptions(ws, [{ to: 9.9 }], { mode: 'design', clock: steppingClock(Date.UTC(2026, 10, 30, 6)) });
        const r = await runPass({
          ...o,
          harness: {
            ...o.harness,
            score: (c) => {
              scored += 1;
              return o.harness.score(c);
            },
          },
        });
        expect(r).toMatchObject({ resumed: true, stopReason: 'target-met', iterationsThisRun: 0 });
        expect(scored).toBe(0);
      },
    );
  },
);

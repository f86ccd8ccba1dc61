import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  resolvePassConfig,
  runAcceptance,
  type AcceptanceEscalation,
  type AcceptanceEvaluation,
  type DevelopRequest,
} from '../src/index.js';
import { parseResultsTsv } from '../src/results-tsv.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-ar3-loop-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const config = resolvePassConfig('acceptance', {
  kpi_target: 9,
  ar_acceptance: { max_acceptance_rounds: 3, pass_rate_target: 0.95 },
});
const results = () => parseResultsTsv(readFileSync(join(dir, '.aid/pipeline/autoresearch/T-3/results.tsv'), 'utf8'));
const state = () => JSON.parse(readFileSync(join(dir, '.aid/pipeline/state.json'), 'utf8'));
let t = 0;
const clock = { now: () => (t += 1000) };

/** Evaluations in order; DEVELOP and escalations are recorded. */
function script(evals: AcceptanceEvaluation[]) {
  const developed: DevelopRequest[] = [];
  const escalated: AcceptanceEscalation[] = [];
  const lines: string[] = [];
  let i = 0;
  return {
    developed,
    escalated,
    lines,
    options: {
      workspace: dir,
      taskId: 'T-3',
      config,
      clock,
      output: (l: string) => lines.push(l),
      evaluate: async () => evals[Math.min(i++, evals.length - 1)]!,
      develop: (r: DevelopRequest) => {
        developed.push(r);
      },
      escalate: (e: AcceptanceEscalation) => {
        escalated.push(e);
      },
    },
  };
}

const failing: AcceptanceEvaluation = {
  passRate: 0.8,
  whyAlignment: 8,
  blockers: ['checkout returns 500 on an empty cart'],
};
const passing: AcceptanceEvaluation = { passRate: 1, whyAlignment: 9.5, blockers: [] };

describe(
  'AR-3 outer loop (seed 002 stop conditions: "acceptance mode ' +
    'additionally bounds its DEVELOP re-entry by max_acceptance_rounds; on ' +
    'the cap with open blockers it ESCALATES to the user rather than looping ' +
    'the pipeline")',
  () => {
    it(
      'seed 002 AR-3 DEVELOP re-entry: a round that is not DONE re-enters ' +
        'DEVELOP through the injected orchestrator callback with the open ' +
        'blockers, then evaluates again; DONE stops (pass_rate ≥ ' +
        'pass_rate_target, no blockers, why_alignment ≥ target)',
      async () => {
        const s = script([failing, passing]);
        const r = await runAcceptance(s.options);
        expect(r).toMatchObject({ stopReason: 'target-met', decision: 'done', roundsThisRun: 2, developReentries: 1 });
        expect(s.developed).toEqual([
          { round: 1, evaluation: failing, blockers: ['checkout returns 500 on an empty cart'] },
        ]);
        expect(s.escalated).toEqual([]);
        expect(results().rows.map((x) => `${x.iter}:${x.status}:${x.snapshot}`)).toEqual([
          'ar3-r1:develop:-',
          'ar3-r2:done:-',
        ]);
      },
    );

    it(
      'seed 002 AR-3 escalation: on max_acceptance_rounds with open blockers ' +
        'it escalates to the user once, with the blockers, and never re-enters ' +
        'DEVELOP again (bounded)',
      async () => {
        const s = script([failing]);
        const r = await runAcceptance(s.options);
        expect(r).toMatchObject({
          stopReason: 'escalated',
          decision: 'escalate',
          roundsThisRun: 3,
          lastRound: 3,
          developReentries: 2,
        });
        expect(s.developed.map((d) => d.round)).toEqual([1, 2]);
        expect(s.escalated).toHaveLength(1);
        expect(s.escalated[0]).toMatchObject({ round: 3, blockers: ['checkout returns 500 on an empty cart'] });
        expect(s.escalated[0]!.message).toMatch(
          /max_acceptance_rounds 3 without DONE .*open blockers: checkout returns 500/,
        );
        expect(results().rows.map((x) => x.status)).toEqual(['develop', 'develop', 'escalate']);
        expect(s.lines[2]).toMatch(/^iter ar3-r3 \| escalate \| .*escalating to the user/);
      },
    );

    it(
      'seed 002 AR-3 + state.json last: the loop ends with the stop summary ' +
        'and state.json written last (autoresearch.acceptance and an ' +
        'AR_ACCEPTANCE step_history entry), keeping the pipeline state',
      async () => {
        mkdirSync(join(dir, '.aid/pipeline'), { recursive: true });
        writeFileSync(
          join(dir, '.aid/pipeline/state.json'),
          JSON.stringify({ stage: 'AR_ACCEPTANCE', step_history: [{ step: 'PHASE_GATE' }] }),
        );
        const s = script([failing]);
        await runAcceptance(s.options);
        expect(s.lines.at(-1)).toMatch(
          new RegExp(
            String.raw`^autoresearch acceptance stopped: escalated\nrounds 3 \(last ` +
              String.raw`ar3-r3\) \| DEVELOP re-entries 2 .*open blockers 1\nvalidated ` +
              String.raw`— your call: nothing was committed$`,
          ),
        );
        const st = state();
        expect(st.stage).toBe('AR_ACCEPTANCE');
        expect(st.autoresearch.acceptance).toMatchObject({
          stop_reason: 'escalated',
          decision: 'escalate',
          last_round: 3,
          develop_reentries: 2,
          open_blockers: ['checkout returns 500 on an empty cart'],
        });
        expect(st.step_history.map((h: { step: string }) => h.step)).toEqual(['PHASE_GATE', 'AR_ACCEPTANCE']);
      },
    );

    it(
      'seed 002 AR-3 resume: rounds continue from the ar3-r<R> rows already in ' +
        'results.tsv, so a re-run cannot reset the max_acceptance_rounds bound',
      async () => {
        const first = script([failing]);
        const ac = new AbortController();
        await runAcceptance({
          ...first.options,
          signal: ac.signal,
          develop: (r) => {
            first.developed.push(r);
            ac.abort();
          },
        });
        expect(results().rows.map((x) => x.iter)).toEqual(['ar3-r1']);
        const second = script([failing]);
        const r = await runAcceptance(second.options);
        expect(results().rows.map((x) => `${x.iter}:${x.status}`)).toEqual([
          'ar3-r1:develop',
          'ar3-r2:develop',
          'ar3-r3:escalate',
        ]);
        expect(r).toMatchObject({ stopReason: 'escalated', roundsThisRun: 2 });
      },
    );

    it(
      'seed 002 AR-3 stop conditions: the cost brake and a human interrupt ' +
        'stop before the next round; an evaluation error is a crash row ' +
        '(pass_rate -, snapshot -) that stops AR-3',
      async () => {
        const braked = script([failing]);
        let spent = 0;
        const r1 = await runAcceptance({
          ...braked.options,
          develop: () => {
            spent = 5;
          },
          cost: { meter: { spentUsd: () => spent }, maxPerRunUsd: 5 },
        });
        expect(r1).toMatchObject({ stopReason: 'cost-brake', roundsThisRun: 1 });
        rmSync(join(dir, '.aid'), { recursive: true, force: true });
        const crashing = script([failing]);
        const r2 = await runAcceptance({
          ...crashing.options,
          evaluate: async () => {
            throw new Error('validator timed out');
          },
        });
        expect(r2).toMatchObject({ stopReason: 'crash', roundsThisRun: 0 });
        expect(results().rows.map((x) => `${x.iter}:${x.columns.pass_rate}:${x.status}:${x.snapshot}`)).toEqual([
          'ar3-r1:-:crash:-',
        ]);
      },
    );

    it(
      'seed 002 setup step 7 for AR-3: the rubric fingerprint is recorded and ' +
        're-checked before every evaluation; a change halts AR-3 as ' +
        'rubric-tampered',
      async () => {
        const rubric = join(dir, 'ar-acceptance.yaml');
        writeFileSync(rubric, 'why: matches\n');
        const s = script([failing]);
        const r = await runAcceptance({
          ...s.options,
          rubricFiles: [rubric],
          develop: () => writeFileSync(rubric, 'why: anything\n'),
        });
        expect(r).toMatchObject({ stopReason: 'rubric-tampered', roundsThisRun: 1 });
        expect(r.error).toMatchObject({ code: 'HARNESS_TAMPERED' });
        expect(results().rows.map((x) => x.status)).toEqual(['develop', 'rubric-tampered']);
        expect(state().autoresearch.acceptance.rubric_sha256).toMatch(/^[0-9a-f]{64}$/);
      },
    );

    it(
      'seed 002 AR-3 resume on the one engine: a DEVELOP re-entry interrupted ' +
        'by a human is re-entered on resume with the open blockers of the last ' +
        'round (kept with the row in results.jsonl), then the rounds go on',
      async () => {
        const first = script([failing]);
        const ac = new AbortController();
        await runAcceptance({
          ...first.options,
          signal: ac.signal,
          develop: (r) => {
            first.developed.push(r);
            ac.abort();
          },
        });
        const second = script([passing]);
        const r = await runAcceptance(second.options);
        expect(second.developed).toEqual([
          { round: 1, evaluation: failing, blockers: ['checkout returns 500 on an empty cart'] },
        ]);
        expect(results().rows.map((x) => `${x.iter}:${x.status}`)).toEqual(['ar3-r1:develop', 'ar3-r2:done']);
        expect(r).toMatchObject({ stopReason: 'target-met', roundsThisRun: 1, developReentries: 1, lastRound: 2 });
      },
    );

    it(
      'seed 002 AR-3: a DEVELOP re-entry that fails is a crash row for the ' +
        'round it preceded (not evaluated) and stops AR-3, state.json still ' +
        'written last',
      async () => {
        const s = script([failing]);
        const r = await runAcceptance({
          ...s.options,
          develop: () => {
            throw new Error('orchestrator unreachable');
          },
        });
        expect(r).toMatchObject({ stopReason: 'crash', roundsThisRun: 1, developReentries: 1 });
        expect(r.error?.message).toBe('orchestrator unreachable');
        expect(results().rows.map((x) => `${x.iter}:${x.columns.pass_rate}:${x.status}`)).toEqual([
          'ar3-r1:0.80:develop',
          'ar3-r2:-:crash',
        ]);
        expect(s.lines[1]).toBe('iter ar3-r2 | crash | - | DEVELOP failed: orchestrator unreachable');
        expect(state().autoresearch.acceptance).toMatchObject({ stop_reason: 'crash', last_round: 2 });
      },
    );
  },
);

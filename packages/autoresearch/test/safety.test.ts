import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createFileAsker,
  createInteractiveAsker,
  runPass,
  type QuestionAsker,
  type SafetyQuestion,
} from '../src/index.js';
import { flowsTouched } from '../src/safety.js';
import { parseResultsTsv } from '../src/results-tsv.js';
import { makeWorkspace, passOptions, scriptedProposer, type Workspace } from './helpers.js';

let ws: Workspace;
afterEach(() => ws?.cleanup());

const rows = () => parseResultsTsv(readFileSync(ws.resultsPath, 'utf8')).rows;
const state = () => JSON.parse(readFileSync(ws.statePath, 'utf8'));
const q = (over: Partial<SafetyQuestion> = {}): SafetyQuestion => ({
  iteration: 1,
  description: 'tighten refund rounding',
  files: ['src/payments/refund.ts'],
  flows: ['payments'],
  slug: 'tighten-refund-rounding',
  profile: 'high',
  ...over,
});

/** An asker that records every question and answers with `approve`. */
function recordingAsker(approve: (q: SafetyQuestion) => boolean, asked: SafetyQuestion[]): QuestionAsker {
  return {
    name: 'recording',
    ask: (question) => {
      asked.push(question);
      return approve(question) ? { approved: true } : { approved: false, reason: 'the on-call lead said no' };
    },
  };
}

describe(
  'ASK before edits touching safety-critical flows (seed 002 safety ' +
    'brakes: "Respect {{CRITICALITY_PROFILE}}: ASK before edits touching ' +
    '{{SAFETY_CRITICAL_FLOWS}}")',
  () => {
    it(
      'seed 002 ASK-before-edit: an edit touching a safety-critical flow is ' +
        'asked before its pre-edit snapshot, and an approved edit is applied and ' +
        'scored normally',
      async () => {
        ws = makeWorkspace();
        const asked: SafetyQuestion[] = [];
        const o = passOptions(ws, [{ to: 7 }]);
        const r = await runPass({
          ...o,
          config: { ...o.config, maxIterations: 1 },
          safety: { flows: ['score'], profile: 'high', asker: recordingAsker(() => true, asked) },
        });
        expect(asked).toEqual([
          {
            iteration: 1,
            description: 'set value to 7',
            files: ['src/score.ts'],
            flows: ['score'],
            slug: 'to-7',
            profile: 'high',
          },
        ]);
        expect(rows().map((x) => x.status)).toEqual(['baseline', 'kept']);
        expect(ws.value()).toBe(7);
        expect(r.refusedEdits).toEqual([]);
      },
    );

    it(
      'seed 002 ASK-before-edit: a refusal skips the edit (nothing snapshotted ' +
        'or applied) and records it as a reverted row with composite - and ' +
        'snapshot -, one chat line naming the refusal, the proposer told not to ' +
        'repeat it, and refused_edits in state.json',
      async () => {
        ws = makeWorkspace();
        const asked: SafetyQuestion[] = [];
        const o = passOptions(ws, [{ to: 9, description: 'rewrite the scoring core' }, { to: 6 }]);
        const seen: string[][] = [];
        const proposer = scriptedProposer(ws, [{ to: 9, description: 'rewrite the scoring core' }, { to: 6 }]);
        const r = await runPass({
          ...o,
          config: { ...o.config, maxIterations: 2 },
          proposer: {
            ...proposer,
            plan: (ctx) => {
              seen.push([...ctx.recentReverted]);
              return proposer.plan(ctx);
            },
          },
          safety: {
            flows: [{ name: 'scoring', files: ['src/**'] }],
            profile: 'high',
            asker: recordingAsker((x) => x.iteration !== 1, asked),
          },
        });
        expect(rows().map((x) => `${x.iter}:${x.status}:${x.columns.composite}:${x.snapshot}`)).toEqual([
          '0:baseline:5.00:000-baseline-20261130T040003Z',
          '1:reverted:-:-',
          expect.stringMatching(/^2:kept:6\.00:002-pre-/),
        ]);
        expect(readdirSync(join(ws.runDir, 'snapshots')).some((n) => n.startsWith('001-pre-'))).toBe(false);
        expect(o.lines[1]).toBe(
          'iter 1 | reverted | - (Δ -) | rewrite the scoring core (skipped: ASK ' +
            'refused for safety-critical flow scoring: the on-call lead said no)',
        );
        expect(seen[1]).toEqual(['rewrite the scoring core']);
        expect(r.refusedEdits).toEqual([
          {
            iter: 1,
            description: 'rewrite the scoring core',
            flows: ['scoring'],
            files: ['src/score.ts'],
            reason: 'the on-call lead said no',
          },
        ]);
        expect(state().autoresearch.function.refused_edits).toHaveLength(1);
        expect(ws.value()).toBe(6);
      },
    );

    it(
      'seed 002 ASK-before-edit + bounded by construction: refused edits count ' +
        'toward max_consecutive_reverts, so a proposer that only proposes refused ' +
        'edits stops on plateau',
      async () => {
        ws = makeWorkspace();
        const o = passOptions(ws, [{ to: 9 }]);
        const r = await runPass({ ...o, safety: { flows: ['score'], asker: recordingAsker(() => false, []) } });
        expect(r.stopReason).toBe('plateau');
        expect(rows().map((x) => x.status)).toEqual(['baseline', 'reverted', 'reverted', 'reverted']);
        expect(ws.value()).toBe(5);
      },
    );

    it(
      'seed 002 ASK-before-edit: edits that touch no safety-critical flow are ' +
        'not asked, and a profile the host waives (askUnderProfile) is not asked',
      async () => {
        ws = makeWorkspace();
        const asked: SafetyQuestion[] = [];
        const o = passOptions(ws, [{ to: 6 }, { to: 7 }]);
        await runPass({
          ...o,
          config: { ...o.config, maxIterations: 1 },
          safety: {
            flows: ['payments', { name: 'auth', files: ['src/login/**'] }],
            asker: recordingAsker(() => false, asked),
          },
        });
        expect(asked).toEqual([]);
        ws.cleanup();
        ws = makeWorkspace();
        const o2 = passOptions(ws, [{ to: 6 }]);
        await runPass({
          ...o2,
          config: { ...o2.config, maxIterations: 1 },
          safety: {
            flows: ['score'],
            profile: 'low',
            askUnderProfile: (p) => p !== 'low',
            asker: recordingAsker(() => false, asked),
          },
        });
        expect(asked).toEqual([]);
        expect(rows().map((x) => x.status)).toEqual(['baseline', 'kept']);
      },
    );

    it(
      'seed 002 ASK-before-edit: an asker that fails (unreadable answers file) ' +
        'is a crash row with nothing applied, never a silent edit',
      async () => {
        ws = makeWorkspace();
        const o = passOptions(ws, [{ to: 9 }]);
        await runPass({
          ...o,
          config: { ...o.config, maxIterations: 1 },
          safety: { flows: ['score'], asker: createFileAsker(join(ws.dir, 'missing-answers.json')) },
        });
        expect(rows().map((x) => x.status)).toEqual(['baseline', 'crash']);
        expect(o.lines[1]).toMatch(
          /crash: plan or ASK failed: .*safety answers file .*missing-answers\.json is unreadable/,
        );
        expect(ws.value()).toBe(5);
      },
    );

    it(
      'flowsTouched: a flow is touched by a declared flow, a file glob of the ' +
        'flow, or a path segment equal to the flow name',
      () => {
        const flows = ['payments', { name: 'auth', files: ['src/login/**'] }, 'audit-log'];
        expect(flowsTouched(flows, ['src/payments/refund.ts'])).toEqual(['payments']);
        expect(flowsTouched(flows, ['src/payments.ts', 'src/login/deep/session.ts'])).toEqual(['payments', 'auth']);
        expect(flowsTouched(flows, ['src/util.ts'], ['audit-log'])).toEqual(['audit-log']);
        expect(flowsTouched(flows, ['src/paymentsx/a.ts', 'src/login.ts'])).toEqual([]);
      },
    );
  },
);

describe('question askers (seed 002 ASK-before-edit)', () => {
  const ask = async (answer: string | null) => {
    const input = new PassThrough();
    const output = new PassThrough();
    let asked = '';
    output.on('data', (b: Buffer) => (asked += b.toString()));
    const pending = createInteractiveAsker({ input, output }).ask(q(), new AbortController().signal);
    if (answer === null) input.end();
    else input.write(`${answer}\n`);
    return { answer: await pending, asked };
  };

  it(
    'interactive asker: prints the question with the flows and profile; ' +
      'y/yes approves, anything else, an empty line or closed input refuses ' +
      '(default No)',
    async () => {
      const yes = await ask('Yes');
      expect(yes.answer).toEqual({ approved: true });
      expect(yes.asked).toBe(
        'ASK (criticality high): iter 1 edit "tighten refund rounding" touches ' +
          'safety-critical flow(s) payments in src/payments/refund.ts. Apply it? ' +
          '[y/N] ',
      );
      expect((await ask('y')).answer.approved).toBe(true);
      expect(await ask('nope').then((r) => r.answer)).toEqual({ approved: false, reason: 'answered "nope"' });
      expect(await ask('').then((r) => r.answer)).toEqual({ approved: false, reason: 'no answer (default No)' });
      expect(await ask(null).then((r) => r.answer.approved)).toBe(false);
    },
  );

  it(
    'answers-from-file asker: the edit slug wins over per-flow answers, ' +
      'every touched flow must be yes, an unanswered question is refused, a bad ' +
      'value is CONFIG_INVALID',
    async () => {
      ws = makeWorkspace();
      const path = join(ws.dir, 'answers.json');
      const asker = createFileAsker(path);
      const signal = new AbortController().signal;
      ws.write('answers.json', JSON.stringify({ payments: 'yes', auth: 'no', 'tighten-refund-rounding': 'no' }));
      expect(await asker.ask(q(), signal)).toEqual({
        approved: false,
        reason: `answered no for tighten-refund-rounding in ${path}`,
      });
      expect(await asker.ask(q({ slug: 'other' }), signal)).toEqual({ approved: true });
      expect((await asker.ask(q({ slug: 'other', flows: ['payments', 'auth'] }), signal)).approved).toBe(false);
      expect(await asker.ask(q({ slug: 'other', flows: ['billing'] }), signal)).toEqual({
        approved: false,
        reason: `no answer for flow billing in ${path} (default No)`,
      });
      ws.write('answers.json', JSON.stringify({ payments: 'maybe' }));
      await expect(Promise.resolve(asker.ask(q({ slug: 'other' }), signal))).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
      });
      expect(existsSync(path)).toBe(true);
    },
  );
});

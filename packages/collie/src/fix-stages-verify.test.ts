// Stages 4a, 4b and 5.0 through step(): triage, deep verify, the G8 / G2 gates, the fix plan and G7
// (stages 5.1-5.3 are in fix-stages.test.ts).
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AutoiterStepOutcome } from './index.js';
import { parseDeferred } from './stage-files.js';
import {
  createFixWorld,
  FIX_RUN,
  FIX_TRIGGER,
  stagesOf,
  type FixSetupOptions,
  type FixSpec,
  type FixWorld,
} from '../test/fixtures/fix-world.js';

let w: FixWorld;
let root: string;
let project: string;
beforeEach(() => {
  w = createFixWorld();
  ({ root, project } = w);
});
afterEach(() => w.cleanup());

const RUN = FIX_RUN;
const TRIGGER = FIX_TRIGGER;
const makeRepo = (files?: Record<string, string>) => w.makeRepo(files);
const setup = (specs: FixSpec[], over?: FixSetupOptions) => w.setup(specs, over);

describe('stages 4a-5.0 wired into step()', () => {
  it(
    'Stage 4a: one deep-tier (opus) triage agent whose prompt meets G3 ' +
      '("reverse suspicion", the NOT-real instruction) gets observations.md, ' +
      'run-spec.md and progress.md; triage.md records its verdicts',
    async () => {
      makeRepo();
      const { a, agent, ip, read, lines } = setup([{ delta: 1 }, { delta: 1 }]);
      const outs: AutoiterStepOutcome[] = [];
      for (let i = 0; i < 6; i += 1) outs.push(await a.step());
      expect(outs.at(-1)).toMatchObject({ kind: 'stage', stage: 'stage4a', status: 'running' });
      const calls = agent.calls.filter((c) => c.role === 'triage');
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ tier: 'deep' });
      expect(calls[0]!.prompt).toContain('reverse suspicion');
      expect(calls[0]!.prompt).toContain('Start by finding reasons why each issue is NOT real before concluding it is');
      expect(calls[0]!.prompt).not.toContain('log line 1');
      expect(Object.keys(calls[0]!.inputs)).toEqual(['observations.md', 'run-spec.md', 'progress.md']);
      expect(read(ip.triage)).toContain(
        '## ISSUE-002\nverdict: Real\nconfidence: 4\nrationale: "tried to show it is not real"',
      );
      expect(lines).toContain(`[autoiter ${RUN}] iter-1 Stage 4a → triage complete (2 → 2 to Deep Verify)`);
      expect(read(a.paths.run(RUN).status)).toBe('iter 1/1 · Stage 4a · Triage · 2 Real, 0 DEFERRED\n');
    },
  );

  it(
    'G8 (triage): Real/Unclear with confidence >= 3 go to Deep Verify, ' +
      'confidence <= 2 go to the progress.md DEFERRED pool tagged ' +
      'triage_low_confidence, Discarded is dropped silently',
    async () => {
      makeRepo();
      const { a, agent, read } = setup([
        { verdict: 'Real', confidence: 3 },
        { verdict: 'Unclear', confidence: 2 },
        { verdict: 'Discarded', confidence: 5 },
        { verdict: 'Unclear', confidence: 4 },
        { verdict: 'Real', confidence: 1 },
      ]);
      await a.run();
      expect(
        agent.calls
          .filter((c) => c.role === 'deep-verify')
          .map((c) => /for (ISSUE-\d+)/.exec(c.prompt)![1])
          .sort(),
      ).toEqual(['ISSUE-001', 'ISSUE-004']);
      const pool = parseDeferred(read(a.paths.run(RUN).progress));
      expect(pool).toEqual([
        { iter: 1, id: 'ISSUE-002', tag: 'triage_low_confidence' },
        { iter: 1, id: 'ISSUE-005', tag: 'triage_low_confidence' },
      ]);
      expect(read(a.paths.run(RUN).progress)).not.toContain('ISSUE-003');
    },
  );

  it(
    'Stage 4b: one deep-tier adversarial agent per verified issue runs in ' +
      'parallel with bounded concurrency (p-limit), each writing ' +
      'fixes/FIX-nnn.md; an Unclear triage sets uncertainty_tag triage_unclear',
    async () => {
      makeRepo();
      const concurrency = { max: 0, now: 0 };
      const { a, agent, ip, read, lines } = setup([{}, {}, {}, { verdict: 'Unclear' }, {}], {
        concurrency,
        deepVerifyConcurrency: 2,
      });
      const outs: AutoiterStepOutcome[] = [];
      for (let i = 0; i < 7; i += 1) outs.push(await a.step());
      expect(outs.at(-1)).toMatchObject({ stage: 'stage4b', status: 'running' });
      const calls = agent.calls.filter((c) => c.role === 'deep-verify');
      expect(calls).toHaveLength(5);
      expect(
        calls.every(
          (c) =>
            c.tier === 'deep' &&
            c.prompt.includes('adversarial') &&
            c.prompt.includes('Attempt proof of falsification before writing fix outline'),
        ),
      ).toBe(true);
      expect(concurrency.max).toBe(2);
      expect(readdirSync(ip.fixes).sort()).toEqual([
        'FIX-001.md',
        'FIX-002.md',
        'FIX-003.md',
        'FIX-004.md',
        'FIX-005.md',
      ]);
      expect(read(ip.fix('FIX-004'))).toContain('uncertainty_tag: triage_unclear');
      expect(lines).toContain(`[autoiter ${RUN}] iter-1 Stage 4b → 5 issues in parallel Deep Verify`);
    },
  );

  it(
    'G8 (deep verify): a FIX with fix_confidence <= 2 goes to DEFERRED ' +
      'tagged deep_verify_low_confidence and is excluded from fix-plan.md and ' +
      'the flow',
    async () => {
      makeRepo();
      const { a, ip, read, flow } = setup([{ delta: 1 }, { delta: 1, fixConfidence: 2 }]);
      await a.run();
      expect(parseDeferred(read(a.paths.run(RUN).progress))).toEqual([
        { iter: 1, id: 'FIX-002', tag: 'deep_verify_low_confidence' },
      ]);
      expect(read(ip.fixPlan)).not.toContain('FIX-002');
      expect(flow.applied).toEqual(['FIX-001']);
    },
  );

  it(
    'G2: a FIX with an empty root_cause or an empty reproduction_test goes ' +
      'to DEFERRED tagged g2_incomplete and is excluded from fix-plan.md',
    async () => {
      makeRepo();
      const { a, ip, read, flow } = setup([{ rootCause: ' ' }, { repro: '' }, {}]);
      await a.run();
      expect(parseDeferred(read(a.paths.run(RUN).progress))).toEqual([
        { iter: 1, id: 'FIX-001', tag: 'g2_incomplete' },
        { iter: 1, id: 'FIX-002', tag: 'g2_incomplete' },
      ]);
      expect(read(ip.fixPlan)).not.toMatch(/FIX-00[12]/);
      expect(flow.applied).toEqual(['FIX-003']);
    },
  );

  it(
    'Stage 5.0: fix-plan.md has the three metadata lines, the task DAG from ' +
      'dependencies, the task details, the impact assessment and the E2E ' +
      'assessment inherited from the run spec',
    async () => {
      makeRepo();
      const { a, ip, read, lines } = setup([{}, { dependencies: ['FIX-003'] }, {}]);
      const outs: AutoiterStepOutcome[] = [];
      for (let i = 0; i < 8; i += 1) outs.push(await a.step());
      expect(outs.at(-1)).toMatchObject({ stage: 'stage5.0', status: 'running' });
      const plan = read(ip.fixPlan);
      expect(plan.split('\n').slice(0, 3)).toEqual([
        `<!-- plan-source: ${ip.fixPlan} -->`,
        '<!-- plan-topic: autoiter-iter-1-fixes -->',
        '<!-- plan-executor: collie:flow -->',
      ]);
      expect(plan).toContain('## Task Execution DAG\n- batch 1: FIX-001, FIX-003\n- batch 2: FIX-002\n');
      expect(plan).toContain(
        '- Why: cause of FIX-002\n- How: write src/FIX-002.delta for FIX-002\n- ' +
          'Key files: src/FIX-002.delta\n- Depends on: FIX-003',
      );
      expect(plan).toContain(
        '- Affected files: src/FIX-001.delta, src/FIX-002.delta, ' +
          'src/FIX-003.delta\n- Reverse impact: None — iter-local change',
      );
      expect(plan).toContain(
        `## E2E Assessment\ntrigger: ${TRIGGER}\nsuccess_criterion: scalar_threshold 100\nprimary_goal: optimization`,
      );
      expect(lines).toContain(`[autoiter ${RUN}] iter-1 Stage 5.0 → fix-plan.md built (3 FIX)`);
    },
  );

  it(
    'Stage 5.0 G7: with two consecutive zero scalar deltas and the same task ' +
      'text as the previous iteration (bucket 5), the run escalates ' +
      'loop_no_progress, notifies deadlock and appends the Jaccard ratio and ' +
      'bucket to summary.md',
    async () => {
      makeRepo();
      const { a, notes, escalations, read, state } = setup([{ delta: 0 }], { maxIterations: 5 });
      for (let i = 0; i < 12; i += 1) await a.step(); // iteration 1 to its Stage 6 (continue): delta 0
      const st = (await state())!;
      expect(st).toMatchObject({ iter: 2, status: 'running', stage: 'kickoff' });
      expect(st.iterations.map((i) => i.scalar_delta)).toEqual([0]);
      // SC3 stops a real run at the second zero delta before G7 can see it (see README); resume as if
      // iteration 2 had also ended with delta 0 and the same plan.
      const rp = a.paths.run(RUN);
      mkdirSync(rp.iter(2).dir, { recursive: true });
      writeFileSync(rp.iter(2).fixPlan, read(rp.iter(1).fixPlan));
      writeFileSync(
        rp.state,
        JSON.stringify({ ...st, iter: 3, iterations: [st.iterations[0], { ...st.iterations[0], iter: 2 }] }),
      );
      const outs = await a.run();
      expect(stagesOf(outs).slice(-2)).toEqual(['stage5.0:escalated', 'done']);
      expect(read(rp.iter(3).summary)).toMatch(/g7_jaccard: 1\.000\ng7_bucket: 5\ng7_consecutive_delta0: 2\n/);
      expect(escalations).toEqual([`loop_no_progress ${RUN}`]);
      expect(notes.map((n) => n.event)).toEqual(['deadlock']);
      expect(existsSync(rp.iter(3).fixPlan)).toBe(false);
    },
  );
});

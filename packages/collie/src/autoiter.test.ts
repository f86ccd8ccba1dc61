import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  COMPLETION_SIGNAL,
  readRunState,
  type Answers,
  type AutoiterOptions,
  type Preparer,
  type RunSpecAsker,
  type ScriptedAgent,
} from './index.js';
import { fixtureAutoiter } from './internal/autoiter-fixture.js';

let root: string;
let project: string;
let stateRoot: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'collie-'));
  project = join(root, 'project');
  stateRoot = join(root, 'collie');
  mkdirSync(project);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A trigger whose scalar rises by one per run, from 1 (state in a counter file). */
const RISING = 'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; echo "score: $n"';
const asker = (over: Partial<Answers> = {}): RunSpecAsker & { asked: number } => {
  const a = {
    name: 'fixed',
    asked: 0,
    ask: () => (
      (a.asked += 1),
      { Q1: RISING, Q2: 'scalar_threshold 100', Q3: 'optimization', Q4: 'kind_aware', Q5: 'yes', ...over }
    ),
  };
  return a;
};

function setup(over: Partial<AutoiterOptions> & { agent?: ScriptedAgent } = {}) {
  return fixtureAutoiter({ project, stateRoot }, { asker: asker(), ...over });
}

const RUN = '20260102-030405-abcdef';

describe('seed 000 §3.5 entry state machine', () => {
  it(
    '§3.5 Branch A: with no current-run file, step() generates runId ' +
      'YYYYMMDD-HHMMSS-hex6, writes current-run and runs Stage 0 (fast-tier ' +
      'discovery, five questions, plan file with the three metadata lines, ' +
      'last-plan.json)',
    async () => {
      const ask = asker();
      const { a, agent } = setup({ asker: ask });
      expect(await a.step()).toEqual({ kind: 'stage0', runId: RUN });
      expect(readFileSync(a.paths.currentRun, 'utf8').trim()).toBe(RUN);
      expect(agent.calls).toMatchObject([{ role: 'discovery', tier: 'fast' }]);
      expect(ask.asked).toBe(1);
      const last = JSON.parse(readFileSync(a.paths.lastPlan, 'utf8')) as { planFile: string; runId: string };
      expect(last.runId).toBe(RUN);
      const plan = readFileSync(last.planFile, 'utf8').split('\n');
      expect(plan.slice(0, 3)).toEqual([
        `<!-- plan-source: ${last.planFile} -->`,
        '<!-- plan-kind: autoiter-stage0 -->',
        '<!-- plan-executor: collie:autoiter -->',
      ]);
      expect(plan.join('\n')).toContain('task: make it faster');
      expect(existsSync(a.paths.run(RUN).runSpec)).toBe(false); // Stage 0 never writes run-spec.md
    },
  );

  it(
    '§3.5 Branch B: the recovery chain copies plan-source byte for byte to ' +
      'run-spec.md, writes worktree-path and initialises state.json (iter 1, ' +
      'running, promise_signal)',
    async () => {
      const { a } = setup();
      await a.step();
      expect(await a.step()).toEqual({ kind: 'recovered', runId: RUN, status: 'running' });
      const rp = a.paths.run(RUN);
      const last = JSON.parse(readFileSync(a.paths.lastPlan, 'utf8')) as { planFile: string };
      expect(readFileSync(rp.runSpec)).toEqual(readFileSync(last.planFile));
      expect(readFileSync(rp.worktreePath, 'utf8').trim()).toBe(project);
      expect(await readRunState(rp.state)).toMatchObject({
        runId: RUN,
        iter: 1,
        status: 'running',
        should_continue: true,
        stop_reason: null,
        last_scalar: null,
        baseline_scalar: null,
        promise_signal: 'Collie: AUTOITER DONE',
      });
    },
  );

  it(
    '§3.5 Branch B: a failed recovery chain (last-plan.json missing) removes ' +
      'current-run and falls back to a fresh start',
    async () => {
      mkdirSync(join(stateRoot, 'autoiter', 'proj'), { recursive: true });
      writeFileSync(join(stateRoot, 'autoiter', 'proj', 'current-run'), 'old-run\n');
      const { a } = setup();
      expect(await a.step()).toEqual({ kind: 'stage0', runId: RUN, recoveryFailed: 'last-plan.json is missing' });
      expect(readFileSync(a.paths.currentRun, 'utf8').trim()).toBe(RUN);
      expect(existsSync(join(a.paths.projectDir, 'old-run'))).toBe(false);
    },
  );

  it(
    '§3.5 Branch B: a last-plan.json of another run, or a plan file without ' + 'plan-source, is a failed chain',
    async () => {
      const { a } = setup();
      await a.step();
      writeFileSync(a.paths.currentRun, 'other-run\n');
      expect(await a.step()).toMatchObject({ kind: 'stage0', recoveryFailed: `last-plan.json belongs to run ${RUN}` });
      const last = JSON.parse(readFileSync(a.paths.lastPlan, 'utf8')) as { planFile: string };
      writeFileSync(last.planFile, 'no metadata\n');
      expect(await a.step()).toMatchObject({
        kind: 'stage0',
        recoveryFailed: 'plan file has no plan-source line in its first 3 lines',
      });
    },
  );

  it('§3.5 Branch C: state.json missing is treated as Branch B (run-spec.md kept, state re-initialised)', async () => {
    const { a } = setup();
    await a.step();
    await a.step();
    const rp = a.paths.run(RUN);
    const spec = readFileSync(rp.runSpec, 'utf8');
    rmSync(rp.state);
    expect(await a.step()).toEqual({ kind: 'recovered', runId: RUN, status: 'running' });
    expect(readFileSync(rp.runSpec, 'utf8')).toBe(spec);
    expect((await readRunState(rp.state))?.status).toBe('running');
  });

  it(
    'invariant 2: run-spec.md is write-once — later steps never modify it, ' + 'even when the plan file changes',
    async () => {
      const { a } = setup();
      await a.step();
      await a.step();
      const rp = a.paths.run(RUN);
      const before = readFileSync(rp.runSpec, 'utf8');
      const mtime = statSync(rp.runSpec).mtimeMs;
      const last = JSON.parse(readFileSync(a.paths.lastPlan, 'utf8')) as { planFile: string };
      writeFileSync(last.planFile, `${readFileSync(last.planFile, 'utf8')}\n# edited later\n`);
      await a.run();
      expect(readFileSync(rp.runSpec, 'utf8')).toBe(before);
      expect(statSync(rp.runSpec).mtimeMs).toBe(mtime);
    },
  );

  it(
    'invariant 6: prepare runs once when skip_prepare is false and is ' + 'skipped when prepare-report.md exists',
    async () => {
      let calls = 0;
      const preparer: Preparer = { name: 'count', prepare: () => ((calls += 1), { ok: true, report: '# ok\n' }) };
      const { a } = setup({ asker: asker({ Q5: 'no' }), preparer });
      await a.step();
      await a.step();
      expect(calls).toBe(1);
      expect(readFileSync(a.paths.run(RUN).prepareReport, 'utf8')).toBe('# ok\n');
      rmSync(a.paths.run(RUN).state); // force Branch B again: the report exists, so prepare is skipped
      await a.step();
      expect(calls).toBe(1);
    },
  );

  it('§3.5 Branch B: skip_prepare true (Q5 yes) never calls prepare', async () => {
    let calls = 0;
    const { a } = setup({
      asker: asker({ Q5: 'yes' }),
      preparer: { name: 'count', prepare: () => ((calls += 1), { ok: true, report: '' }) },
    });
    await a.step();
    await a.step();
    expect(calls).toBe(0);
  });

  it(
    '§3.5 Branch B step 5 (queued): a failed prepare writes status escalated ' +
      'and notifies prepare_failed; the next step is the terminal branch',
    async () => {
      const { a, notes } = setup({
        asker: asker({ Q5: 'no' }),
        preparer: { name: 'fail', prepare: () => ({ ok: false, report: 'fixture data missing' }) },
      });
      await a.step();
      expect(await a.step()).toEqual({ kind: 'recovered', runId: RUN, status: 'escalated' });
      expect(notes.map((n) => n.event)).toEqual(['prepare_failed']);
      expect(existsSync(a.paths.run(RUN).prepareReport)).toBe(false);
      expect(await a.step()).toMatchObject({ kind: 'done', status: 'escalated' });
    },
  );

  it(
    '§3.5 Branch C running: Stage 1 kickoff.md is idempotent (an existing ' +
      'kickoff.md is not rewritten on re-entry)',
    async () => {
      const { a } = setup();
      await a.step();
      await a.step();
      const ip = a.paths.run(RUN).iter(1);
      mkdirSync(ip.dir, { recursive: true });
      writeFileSync(ip.kickoff, 'kept as is\n');
      expect(await a.step()).toMatchObject({ kind: 'stage', stage: 'stage1', iter: 1 });
      expect(readFileSync(ip.kickoff, 'utf8')).toBe('kept as is\n');
      expect(existsSync(ip.fixes)).toBe(true);
    },
  );

  it('§3.5 Branch C iter_done: proceeds to Stage 6, which continues with iter++ and status running', async () => {
    const { a } = setup();
    const kinds = [];
    for (let i = 0; i < 12; i += 1) kinds.push(await a.step());
    expect(kinds.map((k) => (k.kind === 'stage' ? `${k.stage}:${k.status}` : k.kind))).toEqual([
      'stage0',
      'recovered',
      'stage1:running',
      'stage2:running',
      'stage3:running',
      'stage4a:running',
      'stage4b:running',
      'stage5.0:running',
      'stage5.1:running',
      'stage5.2:running',
      'stage5.3:iter_done',
      'stage6:running',
    ]);
    expect(await readRunState(a.paths.run(RUN).state)).toMatchObject({ iter: 2, status: 'running', stage: 'kickoff' });
  });

  it(
    'invariant 7: with COLLIE_AUTOITER_ACTIVE set, step() escalates ' +
      "nested_loop_call, stops, and leaves the outer run's current-run file",
    async () => {
      const outer = setup();
      await outer.a.step();
      const inner = setup({ env: { COLLIE_AUTOITER_ACTIVE: '1' } });
      expect(await inner.a.run()).toEqual([{ kind: 'nested-refused' }]);
      expect(inner.escalations).toEqual(['nested_loop_call proj']);
      expect(readFileSync(outer.a.paths.currentRun, 'utf8').trim()).toBe(RUN);
    },
  );

  it(
    '§3.5 nested-call check: the trigger runs with COLLIE_AUTOITER_ACTIVE=1 ' + 'exported for its subprocesses',
    async () => {
      const { a } = setup({ asker: asker({ Q1: 'echo "score: $COLLIE_AUTOITER_ACTIVE"' }) });
      for (let i = 0; i < 4; i += 1) await a.step();
      expect(readFileSync(a.paths.run(RUN).iter(1).rawLog, 'utf8')).toBe('score: 1\nEXIT_CODE:0\n');
    },
  );

  it(
    'invariants 1 and 3: the completion signal is emitted only by the ' +
      'terminal branch, exactly once, after current-run is removed',
    async () => {
      const seen: { line: string; currentRun: boolean }[] = [];
      const { a } = setup({
        output: (line) =>
          seen.push({ line, currentRun: existsSync(join(stateRoot, 'autoiter', 'proj', 'current-run')) }),
      });
      const outcomes = await a.run();
      const signals = seen.filter((s) => s.line.includes('AUTOITER DONE'));
      expect(signals).toEqual([{ line: COMPLETION_SIGNAL, currentRun: false }]);
      expect(seen.at(-1)?.line).toBe(COMPLETION_SIGNAL);
      expect(outcomes.filter((o) => o.kind === 'done')).toHaveLength(1);
      // Stage 6 writes the status, never the signal
      expect(outcomes.at(-2)).toMatchObject({ kind: 'stage', stage: 'stage6', status: 'budget_exhausted' });
    },
  );
});

// One iteration's stages through step(): Stage 3 observe and the 3.2 ladder, Stage 5.3 summary,
// Stage 6 stop checks, §14 observability (the §3.5 entry state machine is in autoiter.test.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPLETION_SIGNAL } from './controller/entry.js';
import { createScriptedAgent, type ScriptedAgent } from './agent.js';
import type { AutoiterOptions } from './autoiter-options.js';
import { FIXTURE_RUN as RUN, fixedAsker as asker, fixtureAutoiter, fixtureDirs } from './internal/autoiter-fixture.js';
import { readRunState } from './run-state.js';

let dirs: ReturnType<typeof fixtureDirs>;
beforeEach(() => (dirs = fixtureDirs()));
afterEach(() => dirs.cleanup());

function setup(over: Partial<AutoiterOptions> & { agent?: ScriptedAgent } = {}) {
  return fixtureAutoiter(dirs, over);
}

describe('one iteration through step(): stages 3, 5.3, 6 and §14 observability', () => {
  it(
    'Stage 6 SC1: a rising scalar below threshold ends budget_exhausted ' +
      'after max_iterations, notifying budget_exhausted; the worktree-path ' +
      'survives',
    async () => {
      const { a, notes } = setup();
      const outcomes = await a.run();
      expect(outcomes.at(-1)).toEqual({
        kind: 'done',
        runId: RUN,
        status: 'budget_exhausted',
        signal: COMPLETION_SIGNAL,
      });
      const st = await readRunState(a.paths.run(RUN).state);
      expect(st).toMatchObject({
        iter: 3,
        status: 'budget_exhausted',
        should_continue: false,
        baseline_scalar: 1,
        last_scalar: 6,
      });
      expect(st?.stop_reason).toMatch(/^SC1: /);
      expect(st?.iterations.map((i) => [i.scalar_before, i.scalar_after, i.scalar_delta])).toEqual([
        [1, 2, 1],
        [2, 4, 2],
        [4, 6, 2],
      ]);
      expect(notes.map((n) => n.event)).toEqual(['budget_exhausted']);
      expect(existsSync(a.paths.currentRun)).toBe(false);
      expect(existsSync(a.paths.run(RUN).worktreePath)).toBe(true);
    },
  );

  it('Stage 6 SC2: an all_green criterion stops converged after iteration 1 and notifies autoiter_done', async () => {
    const { a, notes } = setup({ asker: asker({ Q1: 'echo "score: 3"', Q2: 'all_green' }) });
    const outcomes = await a.run();
    expect(outcomes.at(-1)).toMatchObject({ kind: 'done', status: 'converged' });
    expect(notes).toEqual([{ event: 'autoiter_done', runId: RUN, statusFile: a.paths.run(RUN).status }]);
    expect(readFileSync(a.paths.run(RUN).iter(1).summary, 'utf8')).toContain('decision: stop_converged');
  });

  it(
    'Stage 6 SC5: the same rerun error three iterations in a row escalates ' +
      '(notify escalated, escalate stop_steps_counter)',
    async () => {
      // Odd runs (Stage 2) pass, even runs (Stage 5.3 reruns) fail with the same error.
      const flaky =
        'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; if [ $((n % ' +
        '2)) -eq 0 ]; then echo "Error: boom at line $n"; exit 2; fi; echo ' +
        '"score: 1"';
      const { a, notes, escalations } = setup({ maxIterations: 9, asker: asker({ Q1: flaky }) });
      await a.run();
      const st = await readRunState(a.paths.run(RUN).state);
      expect(st).toMatchObject({ iter: 3, status: 'escalated' });
      expect(st?.iterations.map((i) => i.error_signature)).toEqual([
        'Error: boom at line N',
        'Error: boom at line N',
        'Error: boom at line N',
      ]);
      expect(notes.map((n) => n.event)).toEqual(['escalated']);
      expect(escalations).toEqual([`stop_steps_counter ${RUN}`]);
    },
  );

  it('Stage 5.3: summary.md records scalar_before, scalar_after, scalar_delta, convergence and decision', async () => {
    const { a } = setup();
    await a.run();
    expect(readFileSync(a.paths.run(RUN).iter(1).summary, 'utf8')).toBe(
      [
        '# Summary — iter-1',
        'scalar_before: 1',
        'scalar_after: 2',
        'scalar_delta: 1',
        'convergence: no',
        'decision: continue',
        'fixes_applied: []',
        'files_changed: 0',
        '',
      ].join('\n'),
    );
    expect(readFileSync(a.paths.run(RUN).iter(3).summary, 'utf8')).toContain('decision: stop_cap');
  });

  it(
    '§14 observability: status.md is overwritten per stage, user-log.md ' +
      'appended, and stdout ticks use "[autoiter {runId}] iter-N Stage X → ' +
      '..."',
    async () => {
      const { a, lines } = setup({ maxIterations: 1 });
      await a.run();
      const rp = a.paths.run(RUN);
      expect(readFileSync(rp.status, 'utf8')).toMatch(/^DONE · SC1: .* · scalar=2 \(baseline=1, Δ=1\)\n$/);
      const log = readFileSync(rp.userLog, 'utf8');
      expect(log).toContain(
        '## iter-1 · 2026-01-02T03:04:05.000Z\nKickoff. HEAD: none. Baseline scalar: none (first iter).',
      );
      expect(log).toContain('Stopped: SC1');
      expect(lines).toContain(`[autoiter ${RUN}] iter-1 Stage 1 → Kickoff`);
      expect(lines).toContain(`[autoiter ${RUN}] iter-1 Stage 2 → trigger running (timeout: 30min)`);
      expect(lines).toContain(`[autoiter ${RUN}] iter-1 Stage 5.3 → rerun done, scalar=2`);
      expect(lines).toContain(`[autoiter ${RUN}] All done — status=budget_exhausted`);
    },
  );

  it(
    'Stage 3.1: the observer (fast tier) gets the last 200 lines of raw.log ' +
      'and the run spec; observations.md records its ISSUEs; non-blocking ' +
      'issues continue',
    async () => {
      const observer = (r: { inputs: Readonly<Record<string, string>> }) =>
        r.inputs['raw.log (last 200 lines)']?.includes('score:')
          ? '## ISSUE-001\ntitle: slow\nseverity: 2\nblocking: false\n'
          : 'NO ISSUES';
      const { a, agent, lines } = setup({
        agent: createScriptedAgent({ discovery: ['x'], observe: [observer] }, { repeatLast: true }),
      });
      for (let i = 0; i < 5; i += 1) await a.step();
      const obs = agent.calls.find((c) => c.role === 'observe');
      expect(obs).toMatchObject({ tier: 'fast' });
      expect(Object.keys(obs?.inputs ?? {})).toEqual(['raw.log (last 200 lines)', 'run-spec.md']);
      expect(readFileSync(join(a.paths.run(RUN).iter(1).dir, 'observations.md'), 'utf8')).toContain(
        '## ISSUE-001\n- title: "slow"',
      );
      expect(lines).toContain(`[autoiter ${RUN}] iter-1 Stage 3 → 1 issues recorded, 0 blocking`);
      expect(await readRunState(a.paths.run(RUN).state)).toMatchObject({ stage: 'triage', ladder: null });
    },
  );

  it(
    'Stage 3.2 ladder: a blocking issue is diagnosed and fixed in the ' +
      'worktree, validated by a rerun; recovery on attempt 2 after a tier ' +
      'upgrade continues the iteration',
    async () => {
      const trigger = 'test -f fixed || { echo "Error: missing config"; exit 1; }; echo "score: 5"';
      const observer = (r: { inputs: Readonly<Record<string, string>> }) =>
        r.inputs['raw.log (last 200 lines)']?.includes('Error')
          ? '## ISSUE-001\ntitle: config missing\nseverity: 2\nblocking: true\n'
          : 'NO ISSUES';
      const diagnose = [
        'root_cause: "unknown"\nfix_applied: "none"',
        () => {
          writeFileSync(join(dirs.project, 'fixed'), '');
          return 'root_cause: "config file absent"\nfix_applied: "created fixed"';
        },
      ];
      const { a, agent, options } = setup({
        maxIterations: 1,
        asker: asker({ Q1: trigger }),
        agent: createScriptedAgent(
          {
            discovery: ['x'],
            observe: [observer],
            diagnose,
            triage: ['## ISSUE-001\nverdict: Discarded\nconfidence: 5\nrationale: fixed by the recovery ladder\n'],
          },
          { repeatLast: true },
        ),
      });
      const outcomes = await a.run();
      expect(outcomes.filter((x) => x.kind === 'stage' && x.stage === 'stage3.2')).toHaveLength(2);
      expect(agent.calls.filter((c) => c.role === 'diagnose').map((c) => c.tier)).toEqual(['fast', 'standard']);
      const ip = a.paths.run(RUN).iter(1);
      expect(readFileSync(join(ip.dir, 'recovery-1.log'), 'utf8')).toContain('EXIT_CODE:1');
      expect(readFileSync(join(ip.dir, 'recovery-2.log'), 'utf8')).toBe('score: 5\nEXIT_CODE:0\n');
      expect(readFileSync(a.paths.run(RUN).userLog, 'utf8')).toContain(
        'Auto-recovery succeeded on attempt 2 (sonnet): config file absent',
      );
      expect(await readRunState(a.paths.run(RUN).state)).toMatchObject({ status: 'budget_exhausted', last_scalar: 5 });
      expect(options.projectDir).toBe(dirs.project);
    },
  );

  it(
    'Stage 3.2 ladder exhausted: three failed attempts (tiers upgraded, ' +
      'capped at opus) write blocker-report.md, escalate blocker_unrecoverable, ' +
      'notify, and set status escalated; the signal comes only from the ' +
      'terminal branch',
    async () => {
      const { a, agent, notes, escalations, lines } = setup({
        asker: asker({ Q1: 'echo "Error: no database"; exit 3' }),
        agent: createScriptedAgent(
          {
            discovery: ['x'],
            observe: ['## ISSUE-001\ntitle: db down\nseverity: 3\nblocking: true\n'],
            diagnose: ['root_cause: "db not running"\nfix_applied: "none"'],
          },
          { repeatLast: true },
        ),
      });
      const outcomes = await a.run();
      expect(agent.calls.filter((c) => c.role === 'diagnose').map((c) => c.tier)).toEqual(['standard', 'deep', 'deep']);
      const report = readFileSync(join(a.paths.run(RUN).iter(1).dir, 'blocker-report.md'), 'utf8');
      expect(report).toContain(
        '## Attempt 1\n- model: sonnet\n- root_cause: db not running\n- fix_applied: none\n- result: fail',
      );
      expect(report).toContain('## Attempt 3\n- model: opus');
      expect(readFileSync(a.paths.run(RUN).status, 'utf8')).toBe(
        'iter 1/3 · Stage 3 · BLOCKED · auto-recovery ladder exhausted\n',
      );
      expect(escalations).toEqual([`blocker_unrecoverable ${RUN}`]);
      expect(notes.map((n) => n.event)).toEqual(['blocker_unrecoverable']);
      expect(outcomes.at(-2)).toMatchObject({ kind: 'stage', stage: 'stage3.2', status: 'escalated' });
      expect(outcomes.at(-1)).toMatchObject({ kind: 'done', status: 'escalated' });
      expect(lines.filter((l) => l === COMPLETION_SIGNAL)).toHaveLength(1);
      expect(await readRunState(a.paths.run(RUN).state)).toMatchObject({
        stop_reason: 'blocker_unrecoverable',
        iter: 1,
      });
    },
  );

  it('Stage 3.2 ladder: a diagnostic agent that fails counts as a failed attempt, never as a stuck step', async () => {
    const { a } = setup({
      asker: asker({ Q1: 'exit 1' }),
      agent: createScriptedAgent({ discovery: ['x'], observe: ['NO ISSUES'] }, { repeatLast: true }),
    });
    expect((await a.run()).at(-1)).toMatchObject({ kind: 'done', status: 'escalated' });
    expect(readFileSync(join(a.paths.run(RUN).iter(1).dir, 'blocker-report.md'), 'utf8')).toContain(
      'root_cause: diagnostic agent failed',
    );
  });
});

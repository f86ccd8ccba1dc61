// `loop collie` end to end: the real CLI as separate processes driving the collie autoiter pipeline
// over a temp git repository, with a fake agent CLI (a shell script answering by $COLLIE_AGENT_ROLE)
// and an answers file (a queued run): runs that step to their end (collie-fixture.ts has the set-up).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { COMPLETION_SIGNAL } from '@loop/collie';
import { describe, expect, it } from 'vitest';
import type { CollieStatus } from '../src/collie/status.js';
import { GREEN, git, loop, loopIn, project, useCollieRepo, writeConfig } from './collie-fixture.js';

useCollieRepo();

const count = (text: string, what: string) => text.split(what).length - 1;
/** stderr without the notice a machine without bubblewrap adds (CI installs it; the notice is not collie's). */
const withoutSandboxNotice = (text: string) => text.replace(/^\[loop\] no sandbox: .*\n/m, '');
const ticks = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('[autoiter '))
    .map((l) =>
      l.replace(/^\[autoiter \S+\]/, '[autoiter <run>]').replace(/ worktree \/\S+,/, ' worktree <worktree>,'),
    );

/** The ticks of a converging single-iteration run, in order. */
const CONVERGED_TICKS = [
  'Stage 0 → Discovery & Lock',
  'Stage 0 → run spec written; restart to continue',
  '§3.5 recovery → run-spec.md copied, worktree <worktree>, state.json initialised (iter 1)',
  'iter-1 Stage 1 → Kickoff',
  'iter-1 Stage 2 → trigger running (timeout: 30min)',
  'iter-1 Stage 3 → 0 issues recorded, 0 blocking',
  'iter-1 Stage 4a → triage complete (0 → 0 to Deep Verify)',
  'iter-1 Stage 4b → 0 issues in parallel Deep Verify',
  'iter-1 Stage 5.0 → fix-plan.md built (0 FIX)',
  'iter-1 Stage 5.1 → flow applied 0 FIX (0 commits)',
  'iter-1 Stage 5.2 → G6 diff audit PASS, G1 PASS',
  'iter-1 Stage 5.3 → rerun done, scalar=1',
  'Stage 6 → STOP (SC2: all green)',
  'All done — status=converged',
].map((t) => `[autoiter <run>] ${t}`);

describe('loop collie (the real CLI on a temp git repository, fake agent CLI, answers file)', () => {
  it(
    'loop collie run steps to the end: converged, exit 0, the completion ' +
      'signal printed once; status reads the files',
    async () => {
      writeConfig(GREEN);
      expect((await loopIn(['collie', 'status'])).stdout).toContain('no run yet');

      const run = await loop(['collie', 'run']);
      expect(withoutSandboxNotice(run.stderr)).toBe('');
      expect(run.code).toBe(0);
      expect(ticks(run.stdout)).toEqual(CONVERGED_TICKS);
      expect(count(run.stdout, COMPLETION_SIGNAL)).toBe(1);
      const runId = /^run (\S+) ended: converged \(13 steps\)$/m.exec(run.stdout)?.[1];
      expect(runId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
      // The run worked in a git worktree; the user's checkout is untouched.
      expect(existsSync(join(project, '.worktrees', `autoiter-${runId}`))).toBe(true);
      expect(git(project, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');

      const status = await loopIn(['collie', 'status', '--json']);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout) as CollieStatus).toMatchObject({
        runId,
        active: false,
        locked: false,
        status: 'converged',
        iteration: 1,
        stopReason: 'SC2: all green',
        lastScalar: 1,
        statusLine: expect.stringMatching(/^DONE · SC2: all green/),
      });
      expect((JSON.parse(status.stdout) as CollieStatus).tokensUsed).toBeGreaterThan(0);
      const text = await loopIn(['collie', 'status']);
      expect(text.stdout).toContain(`run       ${runId} (ended: current-run removed)`);
      expect(text.stdout).toContain('status    converged');
      expect(text.stdout).toContain('stopped   SC2: all green');
    },
  );

  it(
    'loop collie step in one process per session restart reaches the same ' +
      'end; the signal appears only on the terminal step',
    async () => {
      writeConfig(GREEN);
      const outputs: string[] = [];
      for (let i = 0; i < 20 && !outputs.at(-1)?.includes(COMPLETION_SIGNAL); i += 1) {
        const step = await loop(['collie', 'step']);
        expect(withoutSandboxNotice(step.stderr)).toBe('');
        expect(step.code).toBe(0);
        outputs.push(step.stdout);
        if (i === 2) {
          // Mid-run, status reads state.json without the lock.
          expect(JSON.parse((await loopIn(['collie', 'status', '--json'])).stdout)).toMatchObject({
            active: true,
            locked: false,
            status: 'running',
            iteration: 1,
            stage: 'trigger',
          });
        }
      }
      expect(outputs).toHaveLength(13);
      expect(outputs.map((o) => count(o, COMPLETION_SIGNAL))).toEqual([...Array(12).fill(0), 1]);
      expect(ticks(outputs.join(''))).toEqual(CONVERGED_TICKS);
      expect(JSON.parse((await loopIn(['collie', 'status', '--json'])).stdout)).toMatchObject({
        active: false,
        status: 'converged',
        stopReason: 'SC2: all green',
      });
    },
  );

  it(
    'a run that hits its iteration cap ends budget_exhausted with exit 0 ' +
      '(--json prints the outcomes, ticks go to stderr)',
    async () => {
      writeConfig({ ...GREEN, Q2: 'scalar_threshold 100' }, 'maxIterations: 1\nworktree: false\n');
      const run = await loopIn(['collie', 'run', '--json']);
      expect(run.code).toBe(0);
      const outcomes = JSON.parse(run.stdout) as { kind: string; status?: string; signal?: string }[];
      expect(outcomes.at(-1)).toMatchObject({ kind: 'done', status: 'budget_exhausted', signal: COMPLETION_SIGNAL });
      expect(outcomes[0]).toMatchObject({ kind: 'stage0' });
      expect(count(run.stderr, COMPLETION_SIGNAL)).toBe(1);
      expect(run.stderr).toContain('STOP (SC1: iteration cap reached (1 >= 1))');
    },
  );
});

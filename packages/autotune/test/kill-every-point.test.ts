// The autotune iteration on core's step machine: a stop at every durable write of a whole run
// (simulated in-process through the machine's fault hook, and a real SIGKILL of a child process at
// chosen points), then re-entry until complete, ends exactly as an uninterrupted run: the same
// control files, code, commit logs (each commit once) and a clean app repository.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { StepWritePoint } from '@loop/core/step-machine';
import {
  createGitCommitter,
  failedAttempts,
  type AutotuneControllerOptions,
  type IterationResult,
  type RoundWorker,
} from '../src/index.js';
import { createScriptedWorker, fixedClock } from './fixtures/scripted-worker.js';
import { cleanWorkspaces, endState, runToEnd, workspace } from './fixtures/workspace.js';

afterAll(cleanWorkspaces);

type Ws = { dir: string; artifactDir: string };
const label = (p: StepWritePoint) => `${p.kind} ${p.step ?? '-'}${p.effect === undefined ? '' : ` ${p.effect}`}`;
// Two rounds: b and c fixed in round 1, d and e fail twice and are parked (stop_exhausted) in round 2.
// The worker is idempotent (targets and patches follow from the context alone), so an improve call
// interrupted after its edits and asked again makes the same edits and reports the same plan.
const FIX = { b: 1, c: 1, d: Infinity, e: Infinity } as const;
function worker(): RoundWorker {
  const base = createScriptedWorker(FIX);
  return {
    ...base,
    improve: ({ dir, scoreboard, excluded }) => {
      const targets = (Object.keys(FIX) as Array<keyof typeof FIX>).filter(
        (id) => scoreboard.tasks[id]?.passed !== true && !excluded.includes(id),
      );
      const done = targets.map((id) => {
        const attempt = failedAttempts(scoreboard, id) + 1;
        writeFileSync(join(dir, 'code', `${id}.txt`), FIX[id] <= attempt ? 'ok\n' : `bug (attempt ${attempt})\n`);
        return `${id}#${attempt}`;
      });
      return { summary: `patch ${done.join(', ')}`, targets, changed: targets.length > 0 };
    },
  };
}
// The in-process stops need no real fsync: put their workspaces on tmpfs when there is one.
const fastBase = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const options = (ws: Ws, beforeWrite?: (p: StepWritePoint) => void): AutotuneControllerOptions => ({
  dir: ws.dir,
  artifactDir: ws.artifactDir,
  worker: worker(),
  committer: createGitCommitter({
    dir: ws.dir,
    artifactDir: ws.artifactDir,
    author: { name: 't', email: 't@t' },
    clock: fixedClock,
  }),
  clock: fixedClock,
  maxFailedAttempts: 2,
  ...(beforeWrite ? { stepHooks: { beforeWrite } } : {}),
});

// The clean run: every write point it passes, in order, and its end state.
const cleanWs = await workspace('loop-autotune-sweep-', fastBase);
const points: string[] = [];
const cleanOutcomes = await runToEnd(() => options(cleanWs, (p) => void points.push(label(p))));
const clean = endState(cleanWs.dir, cleanWs.artifactDir);
// Skip the read-only effects (the clock and file reads): a stop around a read changes nothing on disk.
const isRead = (l: string) => / (clock|read-state|read-scoreboard|read-exclusions|re-read-state)$/.test(l);
const writePoints = points.map((l, i) => [i, l] as const).filter(([, l]) => !isRead(l));

class Kill extends Error {}

describe('autotune: a stop at every write point of a run, then re-entry', () => {
  it('the clean run completes in two rounds with each commit once', () => {
    expect(cleanOutcomes).toEqual(['continue', 'completed']);
    expect(
      clean.artifactLog.split('\n').map((l) => l.replace(/ — stop_exhausted: .*/, ' — stop_exhausted: ...')),
    ).toEqual([
      'chore(autotune): loop complete — stop_exhausted: ...',
      'chore(autotune): round 2 artifacts — stop_exhausted',
      'chore(autotune): round 1 artifacts — continue',
      'init',
    ]);
    expect(clean.appLog.split('\n')).toEqual([
      'chore(autotune): round 2 artifacts — stop_exhausted',
      'feat(agent): autotune round 2 — patch d#2, e#2',
      'feat(agent): autotune round 1 — patch b#1, c#1, d#1, e#1',
      'init',
    ]);
    expect(writePoints.length).toBeGreaterThan(40);
  });

  it.concurrent.each(writePoints)(
    'stopped before write point %i (%s), re-entry until complete ends as the uninterrupted run',
    async (index) => {
      const ws = await workspace('loop-autotune-sweep-', fastBase);
      let seen = 0;
      const dying = () =>
        options(ws, () => {
          if (seen++ === index) throw new Kill(`stopped at ${index}`);
        });
      await expect(runToEnd(dying)).rejects.toBeInstanceOf(Kill);
      await runToEnd(() => options(ws));
      expect(endState(ws.dir, ws.artifactDir)).toEqual(clean);
    },
  );
});

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const script = join(packageDir, 'test', 'fixtures', 'iteration.ts');

describe('autotune: a real kill -9 of the iteration process', () => {
  // The child runs the three-round scripted run (FIX_AT) one process per iteration.
  const child = (ws: Ws, killAt?: string) =>
    spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', script, ws.dir, ws.artifactDir], {
      cwd: packageDir,
      encoding: 'utf8',
      env: { ...process.env, ...(killAt ? { LOOP_TEST_KILL_AT: killAt } : {}) },
    });
  let reference: ReturnType<typeof endState> | undefined;
  const runChildren = (ws: Ws): string[] => {
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const r = child(ws);
      expect(r.stderr).toBe('');
      const result = JSON.parse(r.stdout) as IterationResult;
      outcomes.push(result.outcome);
      if (result.outcome !== 'continue') break;
    }
    return outcomes;
  };

  it.each([
    ['done improve code-commit', 'after the code commit, before it is journaled'],
    ['intent commit-artifacts artifacts-commit', 'after last_round is written, before the artifacts commit'],
    ['effect complete completion-commit', 'after status: complete is written, before its commit'],
  ])(
    'SIGKILL at "%s" (%s), then fresh processes: the same end state as an unkilled run, each commit once',
    async (killAt) => {
      if (reference === undefined) {
        const ws = await workspace();
        expect(runChildren(ws)).toEqual(['continue', 'continue', 'completed']);
        reference = endState(ws.dir, ws.artifactDir);
      }
      const ws = await workspace();
      let killed = 0;
      for (let i = 0; i < 10 && killed === 0; i += 1) {
        const r = child(ws, killAt);
        if (r.signal === 'SIGKILL') killed += 1;
        else if ((JSON.parse(r.stdout) as IterationResult).outcome !== 'continue') break;
      }
      expect(killed).toBe(1);
      runChildren(ws);
      expect(endState(ws.dir, ws.artifactDir)).toEqual(reference);
      expect(
        execFileSync('git', ['log', '--format=%s'], { cwd: ws.artifactDir, encoding: 'utf8' })
          .split('\n')
          .filter((l) => l.includes('loop complete')),
      ).toHaveLength(1);
    },
  );
});

// Separate-process crash tests for stages 4a-6: a real node process running the controller is
// SIGKILLed in the MIDDLE of one stage's step (the scripted agent, the flow executor, the trigger
// shell, a git wrapper, the notifier or the output tick kills it at a chosen point, once: see
// fixtures/fix-stages-process.ts), then a new process resumes until the run is done. The final
// state.json, every file under the temp root, the worktree branch's git history and the user's
// checkout must equal one uninterrupted in-process run().
//
// The fixture is bundled once (internal-test-utils bundleFixture) so each child is a plain `node` start.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFixture } from '@loop/internal-test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunState, StageName, AutoiterStepOutcome } from '../src/index.js';
import { makeFixAutoiter, PROJECT_ID, type KillPoint } from './fixtures/fix-stages-process.js';
import {
  BRANCH,
  type World,
  files,
  finalOf,
  fresh,
  git,
  read,
  removeTempDirs,
  subjects,
  tempDir,
} from './fixtures/kill-world.js';

afterAll(removeTempDirs);

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const fixture = join(packageDir, 'test', 'fixtures', 'fix-stages-process.ts');
const REVERT = 'chore: revert optimization FIX(es) due to scalar regression (iter-1)';

let bundle: string;
let reference: ReturnType<typeof finalOf> & { outcomes: AutoiterStepOutcome[] };

beforeAll(async () => {
  const out = tempDir('collie-kill-bundle-');
  const bundling = bundleFixture(fixture, out, 'fix-stages-process');
  const w = fresh();
  const outcomes = await makeFixAutoiter(w.stateRoot, w.project).run();
  reference = { ...finalOf(w), outcomes };
  bundle = await bundling;
});

function node(
  w: World,
  mode: 'step' | 'run',
  env: Record<string, string> = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; pid: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, w.stateRoot, w.project, mode], {
      cwd: packageDir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, pid: child.pid!, stdout, stderr }));
  });
}

describe('the uninterrupted reference run', () => {
  it(
    'an uninterrupted run of the scenario commits each eligible FIX once in ' +
      'the worktree, reverts the two optimization FIXes in one commit, and ' +
      'leaves the user checkout untouched',
    () => {
      expect(reference.outcomes.at(-1)).toMatchObject({ kind: 'done', status: 'budget_exhausted' });
      expect(subjects(reference.branchLog)).toEqual([
        REVERT,
        'autoiter iter-1 FIX-005: write src/FIX-005.delta for FIX-005',
        'autoiter iter-1 FIX-002: write src/FIX-002.delta for FIX-002',
        'autoiter iter-1 FIX-001: write src/FIX-001.delta for FIX-001',
        'initial',
      ]);
      expect(reference.branchLog).toContain('Collie-Revert: iter-1');
      expect(reference.state.iterations[0]).toMatchObject({
        scalar_before: 5,
        scalar_after: 4,
        scalar_delta: -1,
        fixes_applied: ['FIX-001', 'FIX-002', 'FIX-005'],
        rollback: { reverted: [{ id: 'FIX-002' }, { id: 'FIX-005' }] },
      });
      expect(reference.userHead).toBe('main');
      expect(subjects(reference.userLog.split('\n').join('\n--\n'))).toEqual(['initial']);
      expect(reference.userStatus).toBe(''); // /.worktrees/ is in the repository's info/exclude
      expect(reference.worktreeStatus).toBe('');
    },
  );
});

interface Case {
  at: KillPoint;
  /** The step the kill interrupted. */
  stage: StageName;
  name: string;
  /** state.json right after the kill: the step in progress. */
  killedIn: Partial<RunState>;
  /** What the files show right after the kill (the kill was mid-step). */
  midStage: (w: World) => void;
}

const iter = (w: World, ...p: string[]) => join(w.runDir, 'iter-1', ...p);
const branchSubjects = (w: World) => git(w.project, 'log', '--format=%s', BRANCH).trim().split('\n');

const CASES: Case[] = [
  {
    at: 'triage',
    stage: 'stage4a',
    name:
      'Stage 4a: a controller SIGKILLed while the triage agent runs resumes in ' +
      'a new process and reaches the same files and git history as an ' +
      'uninterrupted run',
    killedIn: { status: 'running', stage: 'triage' },
    midStage: (w) => {
      expect(existsSync(iter(w, 'observations.md'))).toBe(true);
      expect(existsSync(iter(w, 'triage.md'))).toBe(false);
    },
  },
  {
    at: 'deep-verify-2nd',
    stage: 'stage4b',
    name:
      'Stage 4b: a controller SIGKILLed while Deep Verify agents run ' +
      '(FIX-001.md written, the other agents running) resumes in a new process, ' +
      'dispatches only the missing ones and reaches the same files and git ' +
      'history as an uninterrupted run',
    killedIn: { status: 'running', stage: 'verify' },
    midStage: (w) => expect(readdirSync(iter(w, 'fixes'))).toEqual(['FIX-001.md']),
  },
  {
    at: 'plan-written',
    stage: 'stage5.0',
    name:
      'Stage 5.0: a controller SIGKILLed after fix-plan.md is written but ' +
      'before state.json moves on resumes in a new process and reaches the same ' +
      'files and git history as an uninterrupted run',
    killedIn: { status: 'running', stage: 'plan' },
    midStage: (w) => expect(read(iter(w, 'fix-plan.md'))).toContain('FIX-005'),
  },
  {
    at: 'flow-after-write',
    stage: 'stage5.1',
    name:
      'Stage 5.1: a controller SIGKILLed after the flow executor wrote ' +
      "FIX-002's files but before its commit resumes in a new process, redoes " +
      'FIX-002 from a clean worktree and reaches the same files and git history ' +
      '(one commit per FIX) as an uninterrupted run',
    killedIn: { status: 'running', stage: 'flow' },
    midStage: (w) => {
      expect(branchSubjects(w)[0]).toBe('autoiter iter-1 FIX-001: write src/FIX-001.delta for FIX-001');
      expect(git(w.worktree, 'status', '--porcelain', '--untracked-files=all')).toBe('?? src/FIX-002.delta\n');
    },
  },
  {
    at: 'flow-after-commit',
    stage: 'stage5.1',
    name:
      "Stage 5.1: a controller SIGKILLed right after FIX-002's commit, before " +
      'flow.json records it, resumes in a new process, finds the commit by its ' +
      'trailer and reaches the same git history (no duplicate FIX commit) and ' +
      'state as an uninterrupted run (its flow note is read back from the ' +
      "commit's Collie-Note trailer)",
    killedIn: { status: 'running', stage: 'flow' },
    midStage: (w) => {
      expect(branchSubjects(w)[0]).toBe('autoiter iter-1 FIX-002: write src/FIX-002.delta for FIX-002');
      expect(
        (JSON.parse(read(iter(w, 'flow.json'))) as { applied: { id: string }[] }).applied.map((a) => a.id),
      ).toEqual(['FIX-001']);
    },
  },
  {
    at: 'audit-written',
    stage: 'stage5.2',
    name:
      'Stage 5.2: a controller SIGKILLed after audit.md is written but before ' +
      'state.json moves on resumes in a new process and reaches the same files ' +
      'and git history as an uninterrupted run',
    killedIn: { status: 'running', stage: 'audit' },
    midStage: (w) => expect(read(iter(w, 'audit.md'))).toContain('## G6 diff audit: PASS'),
  },
  {
    at: 'rerun',
    stage: 'stage5.3',
    name:
      'Stage 5.3: a controller SIGKILLed by its own rerun trigger (inside the ' +
      'trigger command) resumes in a new process, reruns the trigger and ' +
      'reaches the same files and git history as an uninterrupted run',
    killedIn: { status: 'running', stage: 'rerun' },
    midStage: (w) => {
      expect(read(iter(w, 'rerun.log'))).toBe('score: 4\n');
      expect(existsSync(iter(w, 'summary.md'))).toBe(false);
    },
  },
  {
    at: 'rerun-logged',
    stage: 'stage5.3',
    name:
      'Stage 5.3: a controller SIGKILLed after the rerun wrote summary.md and ' +
      'user-log.md, before state.json is iter_done, resumes in a new process ' +
      'and reaches the same state and git history as an uninterrupted run ' +
      '(user-log.md gets the rerun line once)',
    killedIn: { status: 'running', stage: 'rerun' },
    midStage: (w) => expect(read(iter(w, 'summary.md'))).toContain('decision: pending'),
  },
  {
    at: 'revert',
    stage: 'stage6',
    name:
      'Stage 6: a controller SIGKILLed between `git revert --no-commit` and ' +
      'the revert commit resumes in a new process, redoes the revert once and ' +
      'reaches the same files and git history (exactly one revert commit) as an ' +
      'uninterrupted run',
    killedIn: { status: 'iter_done' },
    midStage: (w) => {
      expect(branchSubjects(w)[0]).toBe('autoiter iter-1 FIX-005: write src/FIX-005.delta for FIX-005');
      expect(git(w.worktree, 'diff', '--cached', '--name-only')).toBe('src/FIX-002.delta\nsrc/FIX-005.delta\n');
    },
  },
  {
    at: 'stage6-notify',
    stage: 'stage6',
    name:
      'Stage 6: a controller SIGKILLed while notifying the stop (revert ' +
      'committed, state.json not yet terminal) resumes in a new process, does ' +
      'not revert again and reaches the same state and git history as an ' +
      'uninterrupted run (user-log.md gets the rollback and done lines once)',
    killedIn: { status: 'iter_done' },
    midStage: (w) => expect(branchSubjects(w)[0]).toBe(REVERT),
  },
];

// At most two cases at a time (each one is a chain of node processes and git calls; 2 cores).
let free = 2;
const waiting: (() => void)[] = [];
const slot = () => (free > 0 ? ((free -= 1), Promise.resolve()) : new Promise<void>((r) => waiting.push(r)));
const release = () => {
  const next = waiting.shift();
  if (next) next();
  else free += 1;
};

describe('a controller process SIGKILLed in the middle of a stage 4a-6 step', () => {
  it.concurrent.each(CASES)('$name', async (c) => {
    await slot();
    try {
      await killAndResume(c);
    } finally {
      release();
    }
  });
});

async function killAndResume({ at, stage, killedIn, midStage }: Case): Promise<void> {
  const w = fresh();
  const marker = join(tempDir('collie-kill-marker-'), 'fired');

  const killed = await node(w, 'run', { COLLIE_TEST_KILL_AT: at, COLLIE_TEST_KILL_MARKER: marker });
  expect({ signal: killed.signal, stderr: killed.stderr }).toEqual({ signal: 'SIGKILL', stderr: '' });
  expect(existsSync(marker)).toBe(true);
  expect(JSON.parse(read(join(w.runDir, 'state.json')))).toMatchObject(killedIn);
  midStage(w);
  // The dead controller's lock is left behind (owner: the killed pid).
  const lock = join(w.stateRoot, 'autoiter', PROJECT_ID, 'controller.lock');
  expect(existsSync(lock)).toBe(true);
  expect(JSON.parse(read(`${lock}.owner.json`))).toMatchObject({ pid: killed.pid });

  // A new process takes the lock over at once, redoes the interrupted step first, then takes
  // exactly the steps the uninterrupted run took from there.
  const resumed = await node(w, 'run');
  expect({ code: resumed.code, stderr: resumed.stderr }).toEqual({ code: 0, stderr: '' });
  const from = reference.outcomes.findIndex((o) => o.kind === 'stage' && o.stage === stage);
  expect(from).toBeGreaterThan(0);
  expect(JSON.parse(resumed.stdout)).toEqual(reference.outcomes.slice(from));
  expect(existsSync(lock)).toBe(false);

  const final = finalOf(w);
  expect(final.state).toEqual(reference.state);
  expect(final.branchLog).toBe(reference.branchLog);
  expect(final.worktreeStatus).toBe('');
  // The user's checkout is untouched.
  expect(final.userHead).toBe('main');
  expect(final.userLog).toBe(reference.userLog);
  expect(final.userStatus).toBe(reference.userStatus);
  // One commit per FIX, exactly one revert commit.
  const s = subjects(final.branchLog);
  for (const id of ['FIX-001', 'FIX-002', 'FIX-005'])
    expect(s.filter((x) => x.startsWith(`autoiter iter-1 ${id}:`))).toHaveLength(1);
  expect(s.filter((x) => x === REVERT)).toHaveLength(1);

  expect(final.files).toEqual(reference.files);
}

// Issue 11 fault 8: kills injected at the named points of an autotune run, then re-entry. The
// first three tests inject the kill through the committer and the file system, so they run the
// same way against the controller before the step machine (where they fail) and after it.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createGitCommitter,
  resolveAutotunePaths,
  runControllerIteration,
  type AutotuneControllerOptions,
  type Committer,
  type CommitRequest,
  type RoundWorker,
} from '../src/index.js';
import { createScriptedWorker, fixedClock } from './fixtures/scripted-worker.js';
import { cleanWorkspaces, endState, runToEnd, workspace } from './fixtures/workspace.js';

afterEach(cleanWorkspaces);

type Ws = { dir: string; artifactDir: string };
class Kill extends Error {}

/** A committer that dies (throws, before committing) at the first request matching `when`. */
function dyingCommitter(base: Committer, when: (r: CommitRequest) => boolean): Committer {
  let fired = false;
  return {
    name: base.name,
    commit: async (request) => {
      if (!fired && when(request)) {
        fired = true;
        throw new Kill(`killed before: ${request.message}`);
      }
      await base.commit(request);
    },
  };
}

/** Records, per improve call, the round and whether its scoreboard already held attempts of that round. */
function watchedWorker(
  calls: Array<{ round: number; ownAttempts: number }>,
  base: RoundWorker = createScriptedWorker(),
): RoundWorker {
  return {
    ...base,
    improve: (ctx) => {
      const own = Object.values(ctx.scoreboard.targets)
        .flatMap((t) => t.attempts)
        .filter((a) => a.round >= ctx.round).length;
      calls.push({ round: ctx.round, ownAttempts: own });
      return base.improve(ctx);
    },
  };
}

const options = (ws: Ws, over: Partial<AutotuneControllerOptions> = {}): AutotuneControllerOptions => ({
  dir: ws.dir,
  artifactDir: ws.artifactDir,
  worker: createScriptedWorker(),
  committer: createGitCommitter({
    dir: ws.dir,
    artifactDir: ws.artifactDir,
    author: { name: 't', email: 't@t' },
    clock: fixedClock,
  }),
  clock: fixedClock,
  ...over,
});

const stepDir = (ws: Ws) => join(ws.artifactDir, 'projects/autotune/run');
const count = (log: string, line: string) => log.split('\n').filter((l) => l === line).length;

let cleanEnd: ReturnType<typeof endState> | undefined;
async function clean(): Promise<ReturnType<typeof endState>> {
  if (cleanEnd === undefined) {
    const ws = await workspace();
    expect(await runToEnd(() => options(ws))).toEqual(['continue', 'continue', 'completed']);
    cleanEnd = endState(ws.dir, ws.artifactDir);
  }
  return cleanEnd;
}

describe('issue 11 fault 8: autotune re-entry after a kill', () => {
  for (const lostCursor of [false, true]) {
    const variant = lostCursor ? ' (even with the step cursor lost)' : '';
    it(
      `a kill between last_round.recommended_action: stop_exhausted and ` +
        `status: complete runs no further round on re-entry: re-entry checks ` +
        `recommended_action first${variant}`,
      async () => {
        const ws = await workspace();
        const first = options(ws, {
          committer: dyingCommitter(
            createGitCommitter({
              dir: ws.dir,
              artifactDir: ws.artifactDir,
              author: { name: 't', email: 't@t' },
              clock: fixedClock,
            }),
            (r) => r.kind === 'artifacts' && r.round === 3,
          ),
        });
        await expect(runToEnd(() => first)).rejects.toBeInstanceOf(Kill);
        const state = JSON.parse(readFileSync(resolveAutotunePaths(ws.dir, ws.artifactDir).loopState, 'utf8'));
        expect(state).toMatchObject({
          status: 'running',
          last_round: { round: 3, recommended_action: 'stop_exhausted' },
        });
        if (lostCursor) rmSync(stepDir(ws), { recursive: true, force: true });
        const calls: Array<{ round: number; ownAttempts: number }> = [];
        const again = await runControllerIteration(options(ws, { worker: watchedWorker(calls) }));
        expect(calls).toEqual([]);
        expect(again.outcome).toBe('completed');
        expect(again.state).toMatchObject({
          status: 'complete',
          stop_reason: expect.stringMatching(/^stop_exhausted: /),
        });
        expect(endState(ws.dir, ws.artifactDir)).toEqual(await clean());
      },
    );

    it(
      `a round interrupted after its scoreboard write is never handed a ` +
        `scoreboard holding its own attempts when it runs again${variant}`,
      async () => {
        const ws = await workspace();
        const paths = resolveAutotunePaths(ws.dir, ws.artifactDir);
        const calls: Array<{ round: number; ownAttempts: number }> = [];
        expect((await runControllerIteration(options(ws, { worker: watchedWorker(calls) }))).outcome).toBe('continue');
        // Round 2 dies right after scoreboard.json: the changelog cannot be written.
        const changelog = readFileSync(paths.changelog, 'utf8');
        rmSync(paths.changelog);
        mkdirSync(paths.changelog);
        await expect(runControllerIteration(options(ws, { worker: watchedWorker(calls) }))).rejects.toMatchObject({
          code: 'STATE_CORRUPT',
        });
        expect(
          JSON.parse(readFileSync(paths.scoreboard, 'utf8')).targets.c.attempts.map((a: { round: number }) => a.round),
        ).toEqual([1, 2]);
        rmSync(paths.changelog, { recursive: true });
        writeFileSync(paths.changelog, changelog);
        if (lostCursor) rmSync(stepDir(ws), { recursive: true, force: true });
        expect(await runToEnd(() => options(ws, { worker: watchedWorker(calls) }))).toEqual(['continue', 'completed']);
        expect(calls.every((c) => c.ownAttempts === 0)).toBe(true);
        expect(calls.map((c) => c.round)).toEqual(lostCursor ? [1, 2, 2, 3] : [1, 2, 3]);
        // With the cursor, the round resumes after its scoreboard write and ends as an uninterrupted run.
        // Without it the worker is asked again and sees the code its first attempt committed, so only the rule above is
        // compared.
        if (!lostCursor) expect(endState(ws.dir, ws.artifactDir)).toEqual(await clean());
      },
    );
  }

  it(
    'the artifacts commit after the loop_state.json write, lost to a kill, ' + 'is made exactly once on restart',
    async () => {
      const ws = await workspace();
      const dying = dyingCommitter(options(ws).committer!, (r) => r.kind === 'artifacts' && r.round === 1);
      await expect(runControllerIteration(options(ws, { committer: dying }))).rejects.toBeInstanceOf(Kill);
      expect(
        JSON.parse(readFileSync(resolveAutotunePaths(ws.dir, ws.artifactDir).loopState, 'utf8')).last_round.round,
      ).toBe(1);
      expect(await runToEnd(() => options(ws))).toEqual(['continue', 'continue', 'completed']);
      const end = endState(ws.dir, ws.artifactDir);
      expect(count(end.artifactLog, 'chore(autotune): round 1 artifacts — continue')).toBe(1);
      expect(end).toEqual(await clean());
    },
  );
});

it(
  'an unfinished iteration whose round loop_state.json cannot be at (the ' +
    'control files were replaced) is RESUME_MISMATCH, and nothing is written',
  async () => {
    const ws = await workspace();
    const paths = resolveAutotunePaths(ws.dir, ws.artifactDir);
    const stop = {
      beforeWrite: (p: { kind: string; effect?: string }) => {
        if (p.kind === 'intent' && p.effect === 'evaluate') throw new Kill('killed in round 1');
      },
    };
    await expect(runControllerIteration(options(ws, { stepHooks: stop }))).rejects.toBeInstanceOf(Kill);
    const state = JSON.parse(readFileSync(paths.loopState, 'utf8'));
    writeFileSync(
      paths.loopState,
      JSON.stringify({
        ...state,
        last_round: {
          round: 5,
          recommended_action: 'continue',
          outcome: 'evaluated',
          reason: '',
          summary: '',
          targets: [],
          parked: [],
          finished_at: 'x',
        },
      }),
    );
    const before = endState(ws.dir, ws.artifactDir);
    await expect(runControllerIteration(options(ws))).rejects.toMatchObject({
      code: 'RESUME_MISMATCH',
      details: { cursorRound: 1, lastRound: 5 },
    });
    expect(endState(ws.dir, ws.artifactDir)).toEqual(before);
  },
);

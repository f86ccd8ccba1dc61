import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgentCommand } from '../agent-command.js';
import { createScriptedAgent } from '../agent.js';
import { FIXTURE_RUN, fixtureAutoiter, fixtureDirs } from '../internal/autoiter-fixture.js';

let dirs: ReturnType<typeof fixtureDirs>;
beforeEach(() => (dirs = fixtureDirs()));
afterEach(() => dirs.cleanup());

describe("agent dispatches: the run's worktree as cwd, process groups recorded for orphan clean-up", () => {
  it(
    'from Stage 1 on every dispatch gets cwd = the worktree (never the user ' +
      "checkout); Stage 0 discovery keeps the agent's own cwd",
    async () => {
      const worktree = join(dirs.root, 'worktree');
      mkdirSync(worktree);
      const agent = createScriptedAgent({ discovery: ['x'], observe: ['NO ISSUES'] }, { repeatLast: true });
      const { a } = fixtureAutoiter(dirs, {
        agent,
        maxIterations: 1,
        workspace: { name: 'fixed', prepare: () => worktree },
      });
      await a.run();
      expect(agent.calls.map((c) => [c.role, c.cwd])).toEqual([
        ['discovery', undefined],
        ['observe', worktree],
      ]);
    },
  );

  it("agent-command runs in the request's cwd when it names one, else in its own", async () => {
    const other = join(dirs.root, 'other');
    mkdirSync(other);
    const agent = createAgentCommand({
      command: 'cat >/dev/null; pwd',
      cwd: dirs.project,
      logDir: join(dirs.root, 'logs'),
    });
    expect((await agent.run({ role: 'r', tier: 'fast', prompt: 'p', inputs: {} })).trim()).toBe(dirs.project);
    expect((await agent.run({ role: 'r', tier: 'fast', prompt: 'p', inputs: {}, cwd: other })).trim()).toBe(other);
  });

  it(
    'a command agent records its process group under <run>/pids/ while it ' + 'runs, and the file is gone afterwards',
    async () => {
      const { a } = fixtureAutoiter(dirs, { maxIterations: 1 });
      const pids = a.paths.run(FIXTURE_RUN).pids;
      const agent = createAgentCommand({
        command:
          `cat >/dev/null; if [ "$COLLIE_AGENT_ROLE" = discovery ]; then echo x; ` +
          `else ls ${pids}; echo NO ISSUES; fi`,
        cwd: dirs.project,
        logDir: join(dirs.root, 'logs'),
      });
      const run = fixtureAutoiter(dirs, { agent: agent as never, maxIterations: 1 });
      await run.a.run();
      const observeLog = readFileSync(join(dirs.root, 'logs', 'observe-2.log'), 'utf8');
      expect(observeLog).toMatch(/^agent-observe-[0-9a-f]{8}\.pgid$/m);
      expect(readdirSync(pids)).toEqual([]);
    },
  );

  it(
    'a process group left running by a SIGKILLed controller (recorded in ' +
      '<run>/pids/) is killed before the next step does anything',
    async () => {
      const { a } = fixtureAutoiter(dirs, { maxIterations: 1, killGraceMs: 200 });
      await a.step(); // Stage 0
      await a.step(); // recovery: the run exists
      const pids = a.paths.run(FIXTURE_RUN).pids;
      mkdirSync(pids, { recursive: true });
      const child = spawn('/bin/sh', ['-c', 'exec sleep 60'], {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, LOOP_RUN_TOKEN: 'orphan-token' },
      });
      child.unref();
      writeFileSync(join(pids, 'agent-triage-0000.pgid'), JSON.stringify({ pgid: child.pid, token: 'orphan-token' }));
      await a.step(); // Stage 1 of the successor: the orphan goes first
      const alive = () => {
        try {
          return readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
        } catch {
          return false;
        }
      };
      await vi.waitFor(() => expect(alive()).toBe(false), { timeout: 5000, interval: 20 });
      expect(readdirSync(pids)).toEqual([]);
    },
  );
});

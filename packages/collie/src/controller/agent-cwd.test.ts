import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentCommand } from '../agent-command.js';
import { createScriptedAgent } from '../agent.js';
import { fixtureAutoiter, fixtureDirs } from '../internal/autoiter-fixture.js';

let dirs: ReturnType<typeof fixtureDirs>;
beforeEach(() => (dirs = fixtureDirs()));
afterEach(() => dirs.cleanup());

describe('agent dispatches run in the run\'s worktree', () => {
  it('from Stage 1 on every dispatch gets cwd = the worktree (never the user checkout); Stage 0 discovery keeps the agent\'s own cwd', async () => {
    const worktree = join(dirs.root, 'worktree');
    mkdirSync(worktree);
    const agent = createScriptedAgent({ discovery: ['x'], observe: ['NO ISSUES'] }, { repeatLast: true });
    const { a } = fixtureAutoiter(dirs, { agent, maxIterations: 1, workspace: { name: 'fixed', prepare: () => worktree } });
    await a.run();
    expect(agent.calls.map((c) => [c.role, c.cwd])).toEqual([
      ['discovery', undefined],
      ['observe', worktree],
    ]);
  });

  it('agent-command runs in the request\'s cwd when it names one, else in its own', async () => {
    const other = join(dirs.root, 'other');
    mkdirSync(other);
    const agent = createAgentCommand({ command: 'cat >/dev/null; pwd', cwd: dirs.project, logDir: join(dirs.root, 'logs') });
    expect((await agent.run({ role: 'r', tier: 'fast', prompt: 'p', inputs: {} })).trim()).toBe(dirs.project);
    expect((await agent.run({ role: 'r', tier: 'fast', prompt: 'p', inputs: {}, cwd: other })).trim()).toBe(other);
  });
});

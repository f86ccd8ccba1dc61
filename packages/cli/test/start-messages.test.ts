// What `loop run` and `loop resume` print around the start (a refused start, leftover processes),
// in-process on a real git repository with real processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMutatorWorkspace, gitIn } from './fixtures/mutator-workspace.js';
import { runCliCaptured } from './fixtures/run-cli.js';

let ws: string;
const git = (...args: string[]) => gitIn(ws, ...args);
const loop = (...args: string[]) => runCliCaptured(ws, args);

beforeEach(async () => {
  ws = await createMutatorWorkspace('loop-start-', { maxIterations: 1 });
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('loop run: a refused start', () => {
  it(
    'a dirty tree is refused before the branch banner is printed, and the ' +
      'refusal names both the config field and the flag',
    async () => {
      writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 1 }));
      const refused = await loop('run');
      expect(refused.code).not.toBe(0);
      expect(refused.err).toContain('[DIRTY_WORKTREE]');
      expect(refused.err).toContain('allowDirty: true');
      expect(refused.err).toContain('--allow-dirty');
      expect(refused.out).not.toContain('branch auto-iterate/');
      expect(refused.out).not.toContain('workspace ');
      expect(git('rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');

      const accepted = await loop('run', '--allow-dirty');
      expect(accepted.err).toBe('');
      expect(accepted.code).toBe(0);
      const banner = accepted.out.indexOf(`workspace ${ws}  branch auto-iterate/`);
      expect(banner).toBeGreaterThanOrEqual(0);
      expect(accepted.out.indexOf('config    ')).toBeLessThan(banner);
      expect(banner).toBeLessThan(accepted.out.search(/^iter {3}0 /m));
      expect(accepted.out.match(/^workspace /gm)).toHaveLength(1);
      // maxIterations 1: the banner's count in the singular
      expect(accepted.out).toMatch(/^metric {4}score, \w+ is better; 1 iteration of /m);
    },
  );

  it('a held workspace lock prints no banner either', async () => {
    const { acquireLock } = await import('@loop/core/files');
    const lock = await acquireLock({ path: join(ws, '.git', 'loop-workspace') });
    try {
      const run = await loop('run');
      expect(run.err).toContain('[LOCK_HELD]');
      expect(run.out).not.toContain('branch auto-iterate/');
    } finally {
      await lock.release();
    }
  });
});

describe('loop run: a target file that does not exist', () => {
  const lineOf = (needle: string) =>
    readFileSync(join(ws, 'loop.config.yaml'), 'utf8')
      .split('\n')
      .findIndex((l) => l.includes(needle)) + 1;

  it(
    'is a config error at its line in the config file, like a schema error ' +
      '(file:line: targetFiles.1: ... does not exist), exit 2, nothing started',
    async () => {
      const text = readFileSync(join(ws, 'loop.config.yaml'), 'utf8').replace(
        /^targetFiles: .*$/m,
        'targetFiles:\n  - config.json\n  - missing.json',
      );
      writeFileSync(join(ws, 'loop.config.yaml'), text);
      git('commit', '-qam', 'a missing target');
      const run = await loop('run');
      expect(run.code).toBe(2);
      expect(run.err).toBe(
        `error [CONFIG_INVALID]: [loop] [cli] invalid ` +
          `config ${join(ws, 'loop.config.yaml')}:\n ` +
          ` ${join(ws, 'loop.config.yaml')}:${lineOf('- missing.json')}: ` +
          `targetFiles.1: missing.json does not exist in ${ws}\n`,
      );
      expect(run.out).not.toContain('workspace ');
      expect(git('rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    },
  );

  it('implied by a target: block, it is reported at target.path', async () => {
    const text = readFileSync(join(ws, 'loop.config.yaml'), 'utf8')
      .replace(/^targetFiles: .*$/m, 'target:\n  type: code\n  path: gone.py')
      .replace(/^proposer:\n(?: {2}.*\n)+/m, 'proposer: { type: agent, command: "true", goal: g }\n');
    writeFileSync(join(ws, 'loop.config.yaml'), text);
    git('commit', '-qam', 'a missing code target');
    const run = await loop('run');
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      `  ${join(ws, 'loop.config.yaml')}:${lineOf('path: gone.py')}: target.path: gone.py does not exist in ${ws}\n`,
    );
  });
});

/** What a SIGKILLed loop leaves: a detached run command carrying `token`, and the run.pgid file naming it. */
async function leaveRunCommand(token: string): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, LOOP_RUN_TOKEN: token },
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve) => child.on('spawn', () => resolve()));
  mkdirSync(join(ws, '.loop'), { recursive: true });
  writeFileSync(join(ws, '.loop', 'run.pgid'), JSON.stringify({ pgid: child.pid, token }));
  return { child, exited };
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

describe('loop resume: leftover processes', () => {
  it(
    'says in one line how many processes the interrupted run left running ' +
      'and their pids, and they are ended before the next run',
    async () => {
      expect((await loop('run')).code).toBe(0);
      const { child, exited } = await leaveRunCommand('cafe0123beef4567');
      try {
        const resumed = await loop('resume', '--max-iterations', '2');
        expect(resumed.err).toBe('');
        expect(resumed.code).toBe(0);
        expect(resumed.out).toContain(`ending 1 leftover process of the interrupted run (pid ${child.pid})`);
        expect(resumed.out.indexOf('leftover')).toBeLessThan(resumed.out.search(/^iter {3}2 /m));
        await exited; // core's sweep ended it
      } finally {
        killGroup(child.pid!);
      }
      const again = await loop('resume', '--max-iterations', '3');
      expect(again.out).not.toContain('leftover');
    },
  );

  it('a resume that adds no iteration still ends the leftover processes it announces', async () => {
    expect((await loop('run')).code).toBe(0);
    const { child, exited } = await leaveRunCommand('feed0123beef4567');
    try {
      const resumed = await loop('resume', '--max-iterations', '1');
      expect(resumed.code).toBe(0);
      expect(resumed.out).toContain(`ending 1 leftover process of the interrupted run (pid ${child.pid})`);
      expect(resumed.out).toContain('this session: 0 of 1 iteration');
      await exited; // ended by the resume itself (without it the test times out)
    } finally {
      killGroup(child.pid!);
    }
  });
});

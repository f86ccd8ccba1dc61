// `loop collie` end to end, its guards: a second controller while the lock is held, Ctrl-C during a
// step, an invalid config and `loop collie init` (the real CLI, a temp git repository, a fake agent CLI
// and an answers file; collie-fixture.ts has the set-up).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveColliePaths } from '@loop/collie';
import { acquireLock } from '@loop/core/files';
import { describe, expect, it, vi } from 'vitest';
import { parseConfigTextOf } from '../src/load-config.js';
import { COLLIE_CONFIG_KIND } from '../src/collie/load.js';
import { BUNDLE, GREEN, loop, loopIn, root, useCollieRepo, writeConfig } from './collie-fixture.js';

useCollieRepo();

describe('loop collie (the real CLI on a temp git repository, fake agent CLI, answers file)', () => {
  it('a second controller while one holds the lock exits 3 (LOCK_HELD) and touches no file', async () => {
    writeConfig(GREEN);
    const paths = resolveColliePaths(join(root, 'state'), 'app', 'cli');
    const lock = await acquireLock({ path: paths.lock });
    try {
      const step = await loop(['collie', 'step']);
      expect(step.code).toBe(3);
      expect(step.stderr).toContain('error [LOCK_HELD]');
      expect(step.stdout).toBe('');
      const run = await loopIn(['collie', 'run']);
      expect(run.code).toBe(3);
      const status = await loopIn(['collie', 'status']);
      expect(status.stdout).toContain('lock      held by a running controller');
    } finally {
      await lock.release();
    }
    expect(existsSync(paths.currentRun)).toBe(false);
  });

  it(
    "Ctrl-C (SIGINT) during a step exits 130 at once and kills the trigger's " +
      'process group; a later run redoes the step and ends normally',
    async () => {
      // The trigger records its process group and waits; it only finishes once `release` exists. It runs
      // unconfined: it writes outside the worktree, and its `$$` must be a host pid (bwrap has its own pid namespace).
      writeConfig(
        {
          ...GREEN,
          Q1:
            `echo $$ > ${join(root, 'trigger.pid.tmp')} && ` +
            `mv ${join(root, 'trigger.pid.tmp')} ${join(root, 'trigger.pid')}; until ` +
            `[ -f ${join(root, 'release')} ]; do sleep 0.05; done; echo "score: 1"`,
        },
        'trigger:\n  sandbox: none\n',
      );
      const env: NodeJS.ProcessEnv = { ...process.env, CI: '1' };
      delete env['COLLIE_AUTOITER_ACTIVE'];
      const child = spawn(process.execPath, [BUNDLE, 'collie', 'run'], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const pidFile = join(root, 'trigger.pid');
      await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), { timeout: 20_000, interval: 25 });
      const pgid = Number(readFileSync(pidFile, 'utf8'));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain('interrupted: the trigger and agents were stopped');
      const alive = () => {
        try {
          process.kill(-pgid, 0);
          return true;
        } catch {
          return false;
        }
      };
      await vi.waitFor(() => expect(alive()).toBe(false), { timeout: 5000, interval: 20 });
      writeFileSync(join(root, 'release'), '');
      const again = await loop(['collie', 'run']);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/ended: converged/);
    },
  );

  it(
    'an invalid config exits 2 naming file:line: field; loop collie init ' +
      'writes a starter that validates and refuses to overwrite',
    async () => {
      writeConfig(GREEN, 'worktree: maybe\n');
      const file = join(root, 'collie.config.yaml');
      const line = readFileSync(file, 'utf8').split('\n').indexOf('worktree: maybe') + 1;
      const bad = await loopIn(['collie', 'step']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`error [CONFIG_INVALID]`);
      expect(bad.stderr).toContain(`${file}:${line}: worktree: expected boolean, found "maybe"`);
      expect((await loopIn(['collie', 'status', 'missing.yaml'])).code).toBe(2);

      const init = await loopIn(['collie', 'init', 'starter.yaml']);
      expect(init.code).toBe(0);
      expect(init.stdout).toContain(`wrote ${join(root, 'starter.yaml')}`);
      expect(
        parseConfigTextOf(COLLIE_CONFIG_KIND, readFileSync(join(root, 'starter.yaml'), 'utf8'), 'starter.yaml')
          .projectId,
      ).toBe('my-app');
      expect((await loopIn(['collie', 'init', 'starter.yaml'])).code).toBe(2);
      expect((await loopIn(['collie', 'init', 'starter.yaml', '--force'])).code).toBe(0);
    },
  );
});

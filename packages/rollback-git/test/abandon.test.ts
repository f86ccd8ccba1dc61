import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback } from '../src/index.js';
import { makeRepo, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

describe('abandon undoes a start that committed nothing', () => {
  it('removes the new run branch and checks the previous branch out again, keeping the working tree', async () => {
    const repo = makeRepo({ 'train.py': 'lr = 0.1\n' });
    repos.push(repo);
    repo.write('train.py', 'lr = 0.5\n'); // a dirty tree (allowDirty) stays as it is
    const rollback = createGitResetRollback({ dir: repo.dir, branch: 'auto-iterate/t', allowDirty: true });
    await rollback.start();
    expect(await rollback.abandon()).toBe(true);
    expect(repo.git('symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(repo.git('branch', '--list', 'auto-iterate/*')).toBe('');
    expect(repo.read('train.py')).toBe('lr = 0.5\n');
    expect(await rollback.abandon()).toBe(false); // nothing started any more
  });

  it('does nothing once a candidate was committed on the run branch', async () => {
    const repo = makeRepo({ 'train.py': 'lr = 0.1\n' });
    repos.push(repo);
    const rollback = createGitResetRollback({ dir: repo.dir, branch: 'auto-iterate/t' });
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.2\n');
    await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'edit' });
    expect(await rollback.abandon()).toBe(false);
    expect(repo.git('symbolic-ref', 'HEAD')).toBe('refs/heads/auto-iterate/t');
  });
});

describe('start in a folder inside a repository', () => {
  it('is NOT_A_REPOSITORY naming the enclosing repository, not advice to run git init', async () => {
    const repo = makeRepo({ 'sub/train.py': 'lr = 0.1\n' });
    repos.push(repo);
    const sub = `${repo.dir}/sub`;
    const error = await createGitResetRollback({ dir: sub, branch: 'auto-iterate/t' })
      .start()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NOT_A_REPOSITORY', details: { dir: sub, repository: repo.dir } });
    expect((error as Error).message).toContain(`${sub} is inside the git repository ${repo.dir}, not its root`);
  });
});

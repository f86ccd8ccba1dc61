// Issue 13: with reuseScans, one engine iteration walks the working tree twice (the after-edit
// inspection and the revert) instead of four times, and still misses nothing: what a commit takes
// is what the surface check saw, and a change made in a gap is caught by the next scan.
import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback } from '../src/index.js';
import { makeRepo, testOptions, steppingClock, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function setup(reuseScans: boolean) {
  const repo = makeRepo({ 'train.py': 'lr = 1\n', 'src/model.py': 'layers = 2\n' });
  repos.push(repo);
  const rollback = createGitResetRollback({
    ...testOptions(),
    dir: repo.dir,
    branch: 'run/scan',
    clock: steppingClock(),
    reuseScans,
  });
  return { repo, rollback };
}

describe('reuseScans hands a scan to the next step only, and a change in a gap is still caught', () => {
  it(
    'the commit after changedPaths() commits exactly the paths it reported, ' + 'each as it is on disk at the commit',
    async () => {
      const { repo, rollback } = setup(true);
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      expect(await rollback.changedPaths()).toEqual([]);
      repo.write('train.py', 'lr = 2\n');
      expect(await rollback.changedPaths()).toEqual(['train.py']);
      repo.write('train.py', 'lr = 3\n'); // read again at the commit
      const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'lr' });
      expect(repo.git('show', `${id}:train.py`)).toBe('lr = 3');
      expect(repo.git('diff-tree', '--no-commit-id', '--name-only', '-r', id)).toBe('train.py');
    },
  );

  it(
    'a file written between changedPaths() and commit is not in the commit, ' +
      'and the revert saves it in its rescue commit',
    async () => {
      const { repo, rollback } = setup(true);
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      await rollback.changedPaths();
      repo.write('train.py', 'lr = 2\n');
      expect(await rollback.changedPaths()).toEqual(['train.py']);
      repo.write('late.txt', 'written in the gap\n');
      const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'lr' });
      expect(repo.git('diff-tree', '--no-commit-id', '--name-only', '-r', id)).toBe('train.py');
      await rollback.revert(cp, { iteration: 1, candidateId: id });
      expect(repo.exists('late.txt')).toBe(false);
      expect(repo.git('show', 'refs/loop/discarded/1:late.txt')).toBe('written in the gap');
      expect(repo.git('status', '--porcelain')).toBe('');
    },
  );

  it(
    'after a revert the next changedPaths() reports the clean tree without a ' +
      'walk, and the one after it walks again and sees a new untracked file',
    async () => {
      const { repo, rollback } = setup(true);
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      repo.write('train.py', 'lr = 2\n');
      await rollback.changedPaths();
      const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'lr' });
      await rollback.revert(cp, { iteration: 1, candidateId: id });
      await rollback.checkpoint(2);
      expect(await rollback.changedPaths()).toEqual([]);
      repo.write('deep/new/untracked.txt', 'x\n');
      repo.write('src/model.py', 'layers = 9\n');
      expect(await rollback.changedPaths()).toEqual(['deep/new/untracked.txt', 'src/model.py']);
    },
  );

  it(
    'a checkpoint drops the scan for the commit: files written after a ' +
      'checkpoint (a parallel adopt) are committed',
    async () => {
      const { repo, rollback } = setup(true);
      await rollback.start();
      await rollback.changedPaths();
      const cp = await rollback.checkpoint(1);
      repo.write('train.py', 'lr = 5\n');
      const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'adopted' });
      expect(repo.git('show', `${id}:train.py`)).toBe('lr = 5');
    },
  );

  it('without reuseScans a commit scans again: a file written after changedPaths() is in the commit', async () => {
    const { repo, rollback } = setup(false);
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 2\n');
    await rollback.changedPaths();
    repo.write('late.txt', 'x\n');
    const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'lr' });
    expect(repo.git('diff-tree', '--no-commit-id', '--name-only', '-r', id).split('\n').sort()).toEqual([
      'late.txt',
      'train.py',
    ]);
  });
});

describe('the whole-tree scan trusts git index stats only while they match (racy-git rule)', () => {
  it(
    'an edit keeping size, written right after the index, is hashed and ' +
      'seen; an index rewritten by the git CLI is read again',
    async () => {
      const { repo, rollback } = setup(false);
      await rollback.start();
      repo.write('train.py', 'lr = 7\n'); // same size as 'lr = 1\n'
      expect(await rollback.changedPaths()).toEqual(['train.py']);
      repo.git('add', 'train.py'); // a new index (new inode): not the cached parse
      repo.git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'by hand');
      repo.write('src/model.py', 'layers = 3\n');
      expect(await rollback.changedPaths()).toEqual(['src/model.py']);
    },
  );
});

// Issue 31: from `deferStagingAt` bytes of index, a candidate's staging waits for its keep. These
// tests pin what that means on disk, judged by the git CLI: a discarded candidate writes no index,
// a keep writes it, something else rewriting the index meanwhile loses nothing, a kill while it
// lags resumes to the kept commit, and below the threshold the index equals the commit as after
// `git commit`.
import { readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback } from '../src/index.js';
import { BRANCH, cleanUpRepos, info, setup } from './git-reset-setup.js';
import { steppingClock, type TempRepo } from './helpers.js';

afterEach(cleanUpRepos);

type Rollback = ReturnType<typeof setup>['rollback'];

/**
 * Iteration 1, discarded: the index git wrote (with its cache-tree extension, which an in-place
 * patch would leave describing old blobs) is rewritten once without it, as in any run's first
 * iteration. Returns the checkpoint of iteration 2.
 */
async function pastFirstIteration(repo: TempRepo, rollback: Rollback) {
  await rollback.start();
  const cp = await rollback.checkpoint(1);
  repo.write('prepare.py', 'data = 2\n');
  await rollback.revert(cp, { iteration: 1, candidateId: await rollback.commit(cp, info(1)) });
  return rollback.checkpoint(2);
}

/** The index file's identity: a write renames a new file over it. */
const indexId = (repo: TempRepo): string => {
  const s = statSync(join(repo.dir, '.git', 'index'), { bigint: true });
  return `${s.ino}:${s.mtimeNs}:${s.size}`;
};

describe('createGitResetRollback: deferred staging (deferStagingAt)', () => {
  it(
    'a discarded candidate (commit, run, revert) writes no ' + 'index, and git status is clean after the revert',
    async () => {
      const { repo, rollback } = setup({ deferStagingAt: 0, watch: true });
      const cp = await pastFirstIteration(repo, rollback);
      const before = indexId(repo);
      repo.write('train.py', 'lr = 0.05\n');
      repo.write('src/model.py', 'layers = 3\n');
      const id = await rollback.commit(cp, info(2));
      expect(indexId(repo)).toBe(before);
      // During the run: HEAD is the candidate, the index on disk still the checkpoint's blobs.
      expect(repo.git('rev-parse', 'HEAD')).toBe(id);
      expect(repo.git('diff', 'HEAD', '--name-only')).toBe('');
      expect(repo.git('diff', '--cached', '--name-only')).toBe('src/model.py\ntrain.py');
      const beforeRevert = indexId(repo); // git diff may have refreshed stats (it writes the index then)
      await rollback.revert(cp, { iteration: 2, candidateId: id });
      expect(indexId(repo)).toBe(beforeRevert);
      expect(repo.git('rev-parse', 'HEAD')).toBe(cp.id);
      expect(repo.read('train.py')).toBe('lr = 0.1\n');
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(repo.git('diff', '--cached', '--name-only')).toBe('');
    },
  );

  it('a keep writes the deferred staging: the index equals the kept commit, with no leftover reset', async () => {
    const { repo, rollback } = setup({ deferStagingAt: 0 });
    const cp = await pastFirstIteration(repo, rollback);
    const before = indexId(repo);
    repo.write('train.py', 'lr = 0.05\n');
    const id = await rollback.commit(cp, info(2));
    const during = indexId(repo);
    expect(during).toBe(before);
    expect(await rollback.keep(cp, id)).toBe(id);
    expect(indexId(repo)).not.toBe(during);
    expect(repo.git('diff', '--cached', '--name-only')).toBe('');
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(rollback.lastRestore()?.operation).toBe('revert'); // iteration 1's, not a keep's
  });

  it(
    'a git status that rewrites the index during the run loses no staging: the keep still leaves the index ' +
      'at the kept commit without a leftover reset',
    async () => {
      const { repo, rollback } = setup({ deferStagingAt: 0 });
      const cp = await pastFirstIteration(repo, rollback);
      repo.write('train.py', 'lr = 0.05\n');
      const id = await rollback.commit(cp, info(2));
      // Stats that went stale with the content the same: git status refreshes them, writing the index.
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(join(repo.dir, 'prepare.py'), old, old);
      const during = indexId(repo);
      repo.git('status', '--porcelain');
      expect(indexId(repo)).not.toBe(during);
      expect(await rollback.keep(cp, id)).toBe(id);
      expect(rollback.lastRestore()?.operation).toBe('revert'); // iteration 1's, not a keep's
      expect(repo.git('diff', '--cached', '--name-only')).toBe('');
      expect(repo.git('status', '--porcelain')).toBe('');
    },
  );

  it(
    'a change the run makes to a candidate file after its ' + 'commit is found by the keep and reset as a leftover',
    async () => {
      const { repo, rollback } = setup({ deferStagingAt: 0, watch: true });
      const cp = await pastFirstIteration(repo, rollback);
      repo.write('train.py', 'lr = 0.05\n');
      const id = await rollback.commit(cp, info(2));
      repo.write('train.py', 'lr = 0.07\n'); // same size: only the stat data can tell
      expect(await rollback.keep(cp, id)).toBe(id);
      expect(repo.read('train.py')).toBe('lr = 0.05\n');
      expect(rollback.lastRestore()).toMatchObject({ operation: 'keep', paths: ['train.py'] });
      expect(repo.git('status', '--porcelain')).toBe('');
    },
  );

  it(
    'a kill while the staging lags (a new process resumes) ' + 'recovers HEAD, the index and the tree to the keep',
    async () => {
      const { repo, rollback } = setup({ deferStagingAt: 0 });
      const cp = await pastFirstIteration(repo, rollback);
      repo.write('train.py', 'lr = 0.05\n');
      await rollback.commit(cp, info(2));
      // Killed here: nothing of the first rollback's memory reaches the second.
      const resumed = createGitResetRollback({ dir: repo.dir, branch: BRANCH, resume: true, clock: steppingClock() });
      await resumed.start();
      await resumed.recover(cp.id);
      expect(repo.git('rev-parse', 'HEAD')).toBe(cp.id);
      expect(repo.read('train.py')).toBe('lr = 0.1\n');
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(repo.git('diff', '--cached', '--name-only')).toBe('');
    },
  );

  it(
    'below deferStagingAt (a small repository by default) the ' + 'commit stages: the index equals HEAD during the run',
    async () => {
      const { repo, rollback } = setup();
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      const before = indexId(repo);
      repo.write('train.py', 'lr = 0.05\n');
      await rollback.commit(cp, info(1));
      expect(indexId(repo)).not.toBe(before);
      expect(repo.git('diff', '--cached', '--name-only')).toBe('');
      expect(repo.git('status', '--porcelain')).toBe('');
    },
  );

  it(
    'an index git rewrote with a cache tree during the run (a harness running git write-tree) still gets the ' +
      'staging back: the keep writes it without a leftover reset, and the next candidate is staged in memory',
    async () => {
      const { repo, rollback } = setup({ deferStagingAt: 0, watch: true });
      const cp = await pastFirstIteration(repo, rollback);
      repo.write('train.py', 'lr = 0.05\n');
      const id = await rollback.commit(cp, info(2));
      repo.git('write-tree'); // the harness: git records its cache tree in the index
      expect(readFileSync(join(repo.dir, '.git', 'index')).includes('TREE')).toBe(true);
      expect(await rollback.keep(cp, id)).toBe(id);
      expect(rollback.lastRestore()?.operation).toBe('revert'); // iteration 1's, not a keep's
      expect(repo.git('diff', '--cached', '--name-only')).toBe('');
      const cp3 = await rollback.checkpoint(3);
      repo.git('write-tree');
      const before = indexId(repo);
      repo.write('src/model.py', 'layers = 3\n');
      const id3 = await rollback.commit(cp3, info(3));
      expect(indexId(repo)).toBe(before);
      await rollback.revert(cp3, { iteration: 3, candidateId: id3 });
      expect(indexId(repo)).toBe(before);
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(repo.git('fsck', '--no-progress', '--no-dangling')).toBe('');
    },
  );

  it('deferStagingAt must be a whole number of bytes or Infinity (CONFIG_INVALID otherwise)', () => {
    const rule = /deferStagingAt: must be a whole number of bytes \(0 or more\) or Infinity/;
    expect(() => setup({ deferStagingAt: -1 })).toThrow(rule);
    expect(() => setup({ deferStagingAt: 1.5 })).toThrow(rule);
    expect(() => setup({ deferStagingAt: '1MB' as unknown as number })).toThrow(rule);
    expect(() => setup({ deferStagingAt: NaN })).toThrow(rule);
    expect(() => setup({ deferStagingAt: Infinity })).not.toThrow();
  });
});

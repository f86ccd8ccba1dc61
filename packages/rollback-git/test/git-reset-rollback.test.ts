import { writeFileSync, chmodSync } from 'node:fs';
import nodeFs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback, readDiscardedRefs, shortId, type GitFs } from '../src/index.js';
import { makeRepo, testOptions, steppingClock, type TempRepo } from './helpers.js';
import { BRANCH, FILES, cleanUpRepos, info, rejection, repos, setup } from './git-reset-setup.js';

afterEach(cleanUpRepos);

describe('createGitResetRollback: whole cycle', () => {
  it("the user's original branch is never moved", async () => {
    const { repo, rollback } = setup();
    const main = repo.git('rev-parse', 'refs/heads/main');
    await rollback.start();
    let cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.2\n');
    const best = await rollback.keep(cp, await rollback.commit(cp, info(1)));
    for (let i = 2; i <= 4; i += 1) {
      cp = await rollback.checkpoint(i);
      repo.write('train.py', `lr = 0.${i + 2}\n`);
      repo.write(`extra${i}.py`, 'x\n');
      const id = await rollback.commit(cp, info(i));
      if (i === 3) await rollback.keep(cp, id);
      else await rollback.revert(cp, { iteration: i, candidateId: id });
    }
    await rollback.restoreBest(best);
    await rollback.recover(shortId(best));
    expect(repo.git('rev-parse', 'refs/heads/main')).toBe(main);
    expect(repo.git('symbolic-ref', 'HEAD')).toBe(`refs/heads/${BRANCH}`);
    expect(repo.git('rev-parse', 'HEAD')).toBe(best);
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(repo.git('for-each-ref', '--format=%(refname)', 'refs/heads/')).toBe(
      `refs/heads/${BRANCH}\nrefs/heads/main`,
    );
  });

  it('restoreBest resets to the best kept commit and keeps the later tip reachable', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp1 = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.2\n');
    const best = await rollback.keep(cp1, await rollback.commit(cp1, info(1)));
    const cp2 = await rollback.checkpoint(2);
    repo.write('train.py', 'lr = 0.3\n');
    repo.write('added.py', 'y\n');
    const later = await rollback.keep(cp2, await rollback.commit(cp2, info(2)));
    await rollback.restoreBest(shortId(best));
    expect(repo.git('rev-parse', 'HEAD')).toBe(best);
    expect(repo.read('train.py')).toBe('lr = 0.2\n');
    expect(repo.exists('added.py')).toBe(false);
    expect(repo.git('rev-parse', 'refs/loop/discarded/before-restore-best')).toBe(later);
    expect(repo.git('status', '--porcelain')).toBe('');
    const error = await rejection(rollback.restoreBest('deadbeef'));
    expect(error.code).toBe('RESTORE_FAILED');
  });

  it('recover fails with RESUME_MISMATCH for an unknown id or a commit off the run branch', async () => {
    const { repo, rollback } = setup();
    repo.git('checkout', '-q', '-b', 'other');
    repo.write('train.py', 'lr = 7\n');
    repo.git('commit', '-q', '-am', 'elsewhere');
    const elsewhere = repo.git('rev-parse', 'HEAD');
    repo.git('checkout', '-q', 'main');
    await rollback.start();
    const unknown = await rejection(rollback.recover('abcdef1'));
    expect(unknown.code).toBe('RESUME_MISMATCH');
    expect(unknown.message).toContain('abcdef1');
    const off = await rejection(rollback.recover(shortId(elsewhere)));
    expect(off.code).toBe('RESUME_MISMATCH');
    expect(off.message).toContain('is not on run branch');
    const garbage = await rejection(rollback.recover('not-a-hash'));
    expect(garbage.code).toBe('RESUME_MISMATCH');
  });

  it('recover with the current tip and a clean tree changes nothing', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const tip = repo.git('rev-parse', 'HEAD');
    await rollback.recover(tip);
    expect(rollback.lastRestore()).toMatchObject({ operation: 'recover', paths: [], fallback: false });
    expect(await readDiscardedRefs(repo.dir)).toEqual([]);
  });
});

describe('createGitResetRollback: verification', () => {
  /** node:fs with a hook in front of `promises.writeFile`. */
  function hookedFs(hook: (path: string, data: Uint8Array) => Uint8Array | 'fail'): GitFs {
    const promises = {
      ...nodeFs.promises,
      writeFile: async (path: string, data: Uint8Array | string, options?: unknown) => {
        const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
        const result = hook(String(path), bytes);
        if (result === 'fail') throw Object.assign(new Error(`EIO: injected write failure, ${path}`), { code: 'EIO' });
        return nodeFs.promises.writeFile(path, result, options as Parameters<typeof nodeFs.promises.writeFile>[2]);
      },
    };
    return { ...nodeFs, promises } as unknown as GitFs;
  }

  it('a fast reset that fails falls back once to the full reset and verifies', async () => {
    const repo = makeRepo(FILES);
    repos.push(repo);
    let failNext = false;
    const fs = hookedFs((path, data) => {
      if (failNext && path.endsWith('/train.py')) {
        failNext = false;
        return 'fail';
      }
      return data;
    });
    const rollback = createGitResetRollback({ ...testOptions(), dir: repo.dir, fs, branch: BRANCH });
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    writeFileSync(join(repo.dir, 'train.py'), 'lr = 0.2\n');
    const id = await rollback.commit(cp, info(1));
    failNext = true;
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(rollback.lastRestore()).toMatchObject({ fallback: true, targetId: cp.id });
    expect(repo.read('train.py')).toBe('lr = 0.1\n');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('RESTORE_FAILED names the paths that stay wrong after the full reset', async () => {
    const repo = makeRepo(FILES);
    repos.push(repo);
    let corrupt = false;
    const fs = hookedFs((path, data) =>
      corrupt && path.endsWith('/train.py') ? new TextEncoder().encode('garbage\n') : data,
    );
    const rollback = createGitResetRollback({ ...testOptions(), dir: repo.dir, fs, branch: BRANCH });
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    writeFileSync(join(repo.dir, 'train.py'), 'lr = 0.2\n');
    const id = await rollback.commit(cp, info(1));
    corrupt = true;
    const error = await rejection(rollback.revert(cp, { iteration: 1, candidateId: id }));
    expect(error.code).toBe('RESTORE_FAILED');
    expect(error.message).toMatch(
      /^\[loop\] \[rollback-git\] reset of refs\/heads\/auto-iterate\/nov30 to \w{7} did not verify for train\.py/,
    );
    expect(error.message).toContain('git reset --hard');
    expect(error.details).toMatchObject({ targetId: cp.id, paths: ['train.py'] });
  });
});

describe('createGitResetRollback: paths (the fast path)', () => {
  async function scenario(repo: TempRepo, paths: string[] | undefined): Promise<void> {
    const rollback = createGitResetRollback({
      ...testOptions(),
      dir: repo.dir,
      branch: BRANCH,
      clock: steppingClock(),
      ...(paths ? { paths } : {}),
    });
    await rollback.start();
    // 1: modify + add + delete + mode change, kept
    let cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.2\n');
    repo.write('src/new_layer.py', 'class L: pass\n');
    repo.remove('src/deep/util.py');
    chmodSync(join(repo.dir, 'src/model.py'), 0o755);
    await rollback.keep(cp, await rollback.commit(cp, info(1)));
    // 2: discarded, with harness scribbles inside the paths after the commit
    cp = await rollback.checkpoint(2);
    repo.write('train.py', 'lr = 0.3\n');
    repo.remove('src/new_layer.py');
    let id = await rollback.commit(cp, info(2));
    repo.write('src/model.py', 'layers = 99\n', true);
    repo.write('src/scratch.py', 'tmp\n');
    await rollback.revert(cp, { iteration: 2, candidateId: id });
    // 3: a repair, then discarded
    cp = await rollback.checkpoint(3);
    repo.write('src/deep/util.py', 'def g(): pass\n');
    await rollback.commit(cp, info(3));
    repo.write('train.py', 'lr = 0.25\n');
    id = await rollback.commit(cp, info(3, 'repaired', 1));
    await rollback.revert(cp, { iteration: 3, candidateId: id });
    // 4: kept
    cp = await rollback.checkpoint(4);
    repo.write('src/model.py', 'layers = 3\n');
    await rollback.keep(cp, await rollback.commit(cp, info(4)));
  }

  it('the fast path with `paths` gives the same tree as the full path', async () => {
    const full = makeRepo(FILES, 'loop-full-');
    const fast = makeRepo(FILES, 'loop-fast-');
    repos.push(full, fast);
    await scenario(full, undefined);
    await scenario(fast, ['train.py', 'src/']);
    for (const repo of [full, fast]) expect(repo.git('status', '--porcelain')).toBe('');
    expect(fast.git('rev-parse', 'HEAD^{tree}')).toBe(full.git('rev-parse', 'HEAD^{tree}'));
    expect(fast.git('ls-files', '-s')).toBe(full.git('ls-files', '-s'));
    expect(fast.git('log', '--format=%T %s', BRANCH)).toBe(full.git('log', '--format=%T %s', BRANCH));
    expect(fast.read('src/model.py')).toBe('layers = 3\n');
    expect(fast.isExecutable('src/model.py')).toBe(false);
    expect(fast.git('ls-tree', 'HEAD', 'train.py')).toBe(full.git('ls-tree', 'HEAD', 'train.py'));
    expect(fast.exists('src/scratch.py')).toBe(false);
    expect(fast.exists('src/deep')).toBe(false);
  });

  it('with `paths`, changes outside them are neither committed nor reverted', async () => {
    const { repo, rollback } = setup({ paths: ['train.py'] });
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.2\n');
    repo.write('notes.md', 'my notes\n');
    const id = await rollback.commit(cp, info(1));
    expect(repo.git('show', '--name-only', '--format=', id)).toBe('train.py');
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.read('train.py')).toBe('lr = 0.1\n');
    expect(repo.read('notes.md')).toBe('my notes\n');
  });
});

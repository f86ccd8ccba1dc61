import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback, readDiscardedRefs, shortId } from '../src/index.js';
import { testOptions } from './helpers.js';
import { BRANCH, cleanUpRepos, info, rejection, setup } from './git-reset-setup.js';

afterEach(cleanUpRepos);

describe('createGitResetRollback: commit and keep', () => {
  it('kept candidates stay as commits on the run branch', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const base = repo.git('rev-parse', 'HEAD');
    const cp1 = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.05\n');
    const id1 = await rollback.commit(cp1, info(1, 'halve lr'));
    expect(await rollback.keep(cp1, id1)).toBe(id1);
    const cp2 = await rollback.checkpoint(2);
    expect(cp2.id).toBe(id1);
    repo.write('src/model.py', 'layers = 4\n');
    const id2 = await rollback.commit(cp2, info(2, 'deeper model'));
    expect(await rollback.keep(cp2, id2)).toBe(id2);
    expect(repo.git('rev-parse', `refs/heads/${BRANCH}`)).toBe(id2);
    expect(repo.git('log', '--format=%H %P %s', BRANCH).split('\n')).toEqual([
      `${id2} ${id1} auto-iterate: deeper model`,
      `${id1} ${base} auto-iterate: halve lr`,
      expect.stringMatching(new RegExp(`^${base}  initial$`)),
    ]);
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('repair commit replaces the candidate (parent is the checkpoint)', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = oops(\n');
    repo.write('helper.py', 'x = 1\n');
    const broken = await rollback.commit(cp, info(1, 'new schedule'));
    repo.write('train.py', 'lr = 0.3\n'); // the repair
    const repaired = await rollback.commit(cp, info(1, 'new schedule (repaired)', 1));
    expect(repaired).not.toBe(broken);
    expect(repo.git('rev-parse', `${repaired}^`)).toBe(cp.id);
    expect(repo.git('rev-parse', `refs/heads/${BRANCH}`)).toBe(repaired);
    expect(repo.git('rev-list', BRANCH)).not.toContain(broken);
    expect(repo.git('show', `${repaired}:train.py`)).toBe('lr = 0.3');
    expect(repo.git('show', `${repaired}:helper.py`)).toBe('x = 1'); // the first attempt's other edits stay
    await rollback.revert(cp, { iteration: 1, candidateId: repaired });
    expect(repo.read('train.py')).toBe('lr = 0.1\n');
    expect(repo.exists('helper.py')).toBe(false);
  });

  it('an unchanged candidate still commits', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    const id = await rollback.commit(cp, info(1, 'no-op'));
    expect(id).not.toBe(cp.id);
    expect(repo.git('rev-parse', `${id}^{tree}`)).toBe(repo.git('rev-parse', `${cp.id}^{tree}`));
    expect(repo.git('log', '-1', '--format=%s', BRANCH)).toBe('auto-iterate: no-op');
  });

  it('commit uses the message prefix, the author and the injected clock', async () => {
    const { repo, rollback } = setup({
      messagePrefix: 'exp: ',
      author: { name: 'Tuner', email: 'tuner@example.com' },
      clock: { now: () => Date.UTC(2025, 10, 30, 12, 0, 0) },
    });
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.7\n');
    const id = await rollback.commit(cp, info(1, 'lr 0.7'));
    expect(repo.git('log', '-1', '--format=%s|%an|%ae|%cn|%at', id)).toBe(
      `exp: lr 0.7|Tuner|tuner@example.com|Tuner|${Date.UTC(2025, 10, 30, 12, 0, 0) / 1000}`,
    );
  });

  it('members refuse to touch anything when HEAD left the run branch', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.2\n');
    const id = await rollback.commit(cp, info(1));
    repo.git('checkout', '-q', '-f', 'main');
    repo.write('train.py', 'user work\n');
    const error = await rejection(rollback.revert(cp, { iteration: 1, candidateId: id }));
    expect(error.code).toBe('RESTORE_FAILED');
    expect(error.message).toContain('HEAD is on refs/heads/main, not on the run branch auto-iterate/nov30');
    expect(repo.read('train.py')).toBe('user work\n');
    expect(repo.git('rev-parse', `refs/heads/${BRANCH}`)).toBe(id);
  });

  it('keep fails with RESTORE_FAILED when something else moved the branch', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.2\n');
    const id = await rollback.commit(cp, info(1));
    repo.git('update-ref', `refs/heads/${BRANCH}`, cp.id);
    const error = await rejection(rollback.keep(cp, id));
    expect(error.code).toBe('RESTORE_FAILED');
    expect(error.message).toMatch(/^\[loop\] \[rollback-git\] keep: run branch auto-iterate\/nov30 points at/);
  });
});

describe('createGitResetRollback: start', () => {
  it('start refuses a dirty tree and lists the files', async () => {
    const { repo, rollback } = setup();
    repo.write('train.py', 'lr = 0.9\n');
    repo.write('notes.txt', 'todo\n');
    repo.write('results.tsv', 'commit\tscore\n'); // excluded: does not count
    repo.write('src/__pycache__/x.pyc', 'b'); // ignored: does not count
    const error = await rejection(rollback.start());
    expect(error.code).toBe('DIRTY_WORKTREE');
    expect(error.message).toBe(
      '[loop] [rollback-git] working tree has uncommitted changes in ' +
        'notes.txt, train.py; commit or stash them, or pass allowDirty: true ' +
        '(loop run --allow-dirty)',
    );
    expect(error.details).toEqual({ files: ['notes.txt', 'train.py'] });
    expect(repo.git('branch', '--list', BRANCH)).toBe('');
    expect(repo.git('symbolic-ref', 'HEAD')).toBe('refs/heads/main');

    const dirtyOk = createGitResetRollback({
      ...testOptions(),
      dir: repo.dir,
      branch: BRANCH,
      allowDirty: true,
    });
    await dirtyOk.start();
    expect(repo.git('symbolic-ref', 'HEAD')).toBe(`refs/heads/${BRANCH}`);
    expect(repo.read('train.py')).toBe('lr = 0.9\n');
  });

  it('start fails with BRANCH_EXISTS unless resuming', async () => {
    const { repo, rollback } = setup();
    repo.git('checkout', '-q', '-b', BRANCH);
    repo.write('train.py', 'lr = 0.01\n');
    repo.git('commit', '-q', '-am', 'kept earlier');
    const tip = repo.git('rev-parse', 'HEAD');
    repo.git('checkout', '-q', 'main');

    const error = await rejection(rollback.start());
    expect(error.code).toBe('BRANCH_EXISTS');
    expect(error.message).toContain('pass resume: true');
    expect(repo.git('symbolic-ref', 'HEAD')).toBe('refs/heads/main');

    const resumed = createGitResetRollback({ ...testOptions(), dir: repo.dir, branch: BRANCH, resume: true });
    const report = await resumed.start();
    expect(report).toMatchObject({ created: false, previousBranch: 'refs/heads/main', headId: tip });
    expect(repo.git('symbolic-ref', 'HEAD')).toBe(`refs/heads/${BRANCH}`);
    expect(repo.read('train.py')).toBe('lr = 0.01\n');
    expect(repo.git('status', '--porcelain')).toBe('');
    expect((await resumed.checkpoint(5)).id).toBe(tip);
  });

  it('start with resume accepts the dirty tree an interrupted iteration left, and recover cleans it', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.3\n');
    const kept = await rollback.keep(cp, await rollback.commit(cp, info(1)));
    const cp2 = await rollback.checkpoint(2);
    repo.write('train.py', 'lr = 0.4 # interrupted\n');
    await rollback.commit(cp2, info(2));
    repo.write('prepare.py', 'half written');
    // The machine reboots here; results.tsv recorded `kept` as the last kept commit.
    const resumed = createGitResetRollback({ ...testOptions(), dir: repo.dir, branch: BRANCH, resume: true });
    await resumed.start();
    await resumed.recover(shortId(kept));
    expect(repo.git('rev-parse', 'HEAD')).toBe(kept);
    expect(repo.read('train.py')).toBe('lr = 0.3\n');
    expect(repo.read('prepare.py')).toBe('data = 1\n');
    expect(repo.git('status', '--porcelain')).toBe('');
    expect((await readDiscardedRefs(repo.dir)).map((r) => r.name)).toEqual(['recovered']);
  });

  it('start fails with NOT_A_REPOSITORY outside a repository or before the first commit', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'loop-no-repo-'));
    try {
      const error = await rejection(createGitResetRollback({ ...testOptions(), dir: empty, branch: BRANCH }).start());
      expect(error.code).toBe('NOT_A_REPOSITORY');
      expect(error.message).toContain('no git repository at');
      mkdirSync(join(empty, '.git'));
      const { execFileSync } = await import('node:child_process');
      execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: empty });
      const unborn = await rejection(
        createGitResetRollback({ ...testOptions(), dir: empty, branch: BRANCH }).checkpoint(1),
      );
      expect(unborn.code).toBe('NOT_A_REPOSITORY');
      expect(unborn.message).toContain('has no commit yet');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('start writes the excludes once and leaves .gitignore alone', async () => {
    const { repo, rollback } = setup({ excludes: ['results.tsv', 'run.log', '.loop/', 'checkpoints/'] });
    const report = await rollback.start();
    expect(report.excludesAdded).toEqual(['results.tsv', 'run.log', '.loop/', 'checkpoints/']);
    const again = createGitResetRollback({
      ...testOptions(),
      dir: repo.dir,
      branch: BRANCH,
      resume: true,
      excludes: ['results.tsv', 'checkpoints/'],
    });
    expect((await again.start()).excludesAdded).toEqual([]);
    const exclude = readFileSync(join(repo.dir, '.git/info/exclude'), 'utf8');
    expect(exclude.split('\n').filter((line) => line === 'results.tsv')).toHaveLength(1);
    expect(exclude).toContain('# added by loop');
    expect(repo.read('.gitignore')).toBe('__pycache__/\n');
    repo.write('checkpoints/step1.pt', 'w');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('checkpoint runs start when it was not called', async () => {
    const { repo, rollback } = setup();
    const cp = await rollback.checkpoint(1);
    expect(repo.git('symbolic-ref', 'HEAD')).toBe(`refs/heads/${BRANCH}`);
    expect(cp.id).toBe(repo.git('rev-parse', 'main'));
    expect((await rollback.start()).created).toBe(true); // the same start, not a second one
  });
});

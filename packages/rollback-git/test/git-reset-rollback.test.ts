import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  readlinkSync,
  lstatSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import nodeFs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLoopError, type LoopError } from '@loop/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createGitResetRollback,
  readDiscardedRefs,
  shortId,
  type GitFs,
  type GitResetRollbackOptions,
} from '../src/index.js';
import { makeRepo, testSettings, steppingClock, type FileSpec, type TempRepo } from './helpers.js';

const BRANCH = 'auto-iterate/nov30';
const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

const FILES: Record<string, FileSpec> = {
  'train.py': 'lr = 0.1\n',
  'prepare.py': 'data = 1\n',
  'src/model.py': 'layers = 2\n',
  'src/deep/util.py': 'def f(): pass\n',
  'run.sh': { content: '#!/bin/sh\necho run\n', executable: true },
  '.gitignore': '__pycache__/\n',
};

function setup(options: Partial<GitResetRollbackOptions> = {}, files: Record<string, FileSpec> = FILES) {
  const repo = makeRepo(files);
  repos.push(repo);
  const rollback = createGitResetRollback({
    watch: testSettings.watch,
    dir: repo.dir,
    branch: BRANCH,
    clock: steppingClock(),
    ...options,
  });
  return { repo, rollback };
}

async function rejection(promise: Promise<unknown>): Promise<LoopError> {
  try {
    await promise;
  } catch (error) {
    if (isLoopError(error)) return error;
    throw error;
  }
  throw new Error('expected a LoopError, got success');
}

const info = (iteration: number, description = `edit ${iteration}`, attempt = 0) => ({
  iteration,
  attempt,
  description,
});

describe('createGitResetRollback: revert', () => {
  it('revert removes files the candidate added', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('new/deep/extra.py', 'x = 1\n');
    repo.write('top.txt', 'top\n');
    const id = await rollback.commit(cp, info(1));
    expect(repo.git('show', '--name-only', '--format=', id).split('\n').sort()).toEqual([
      'new/deep/extra.py',
      'top.txt',
    ]);
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.exists('top.txt')).toBe(false);
    expect(repo.exists('new/deep/extra.py')).toBe(false);
    expect(repo.exists('new')).toBe(false); // empty directories left behind are removed
    expect(repo.git('rev-parse', 'HEAD')).toBe(cp.id);
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(rollback.lastRestore()).toMatchObject({ operation: 'revert', targetId: cp.id, fallback: false });
  });

  it('revert brings back files the candidate deleted', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.remove('prepare.py');
    repo.remove('src/deep');
    const id = await rollback.commit(cp, info(1));
    expect(repo.git('ls-tree', '-r', '--name-only', id)).not.toContain('src/deep/util.py');
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.read('prepare.py')).toBe('data = 1\n');
    expect(repo.read('src/deep/util.py')).toBe('def f(): pass\n');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it("revert restores a file's executable mode", async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    chmodSync(join(repo.dir, 'run.sh'), 0o644); // mode-only change
    chmodSync(join(repo.dir, 'train.py'), 0o755);
    repo.write('prepare.py', 'data = 2\n', true); // content and mode
    const id = await rollback.commit(cp, info(1));
    const modes = repo.git('ls-tree', id, 'run.sh', 'train.py', 'prepare.py');
    expect(modes).toMatch(/^100644 blob \w+\trun\.sh$/m);
    expect(modes).toMatch(/^100755 blob \w+\ttrain\.py$/m);
    expect(modes).toMatch(/^100755 blob \w+\tprepare\.py$/m);
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.isExecutable('run.sh')).toBe(true);
    expect(repo.isExecutable('train.py')).toBe(false);
    expect(repo.isExecutable('prepare.py')).toBe(false);
    expect(repo.read('prepare.py')).toBe('data = 1\n');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('results.tsv and run.log survive a revert', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    repo.write('results.tsv', 'commit\tscore\tstatus\tdescription\n');
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.2\n');
    repo.write('run.log', 'val_bpb: 1.23\n');
    repo.write('.loop/state.json', '{"iteration":1}\n');
    const id = await rollback.commit(cp, info(1));
    expect(repo.git('show', '--name-only', '--format=', id)).toBe('train.py');
    repo.write('results.tsv', `commit\tscore\tstatus\tdescription\n${shortId(id)}\t1.23\tdiscard\tlr 0.2\n`);
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.read('train.py')).toBe('lr = 0.1\n');
    expect(repo.read('run.log')).toBe('val_bpb: 1.23\n');
    expect(repo.read('results.tsv')).toContain(`${shortId(id)}\t1.23`);
    expect(repo.read('.loop/state.json')).toBe('{"iteration":1}\n');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('a discarded commit stays reachable under refs/loop/discarded/<iteration>', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(3);
    repo.write('train.py', 'lr = 0.3\n');
    const first = await rollback.commit(cp, info(3));
    await rollback.revert(cp, { iteration: 3, candidateId: first });
    await rollback.revert(cp, { iteration: 3, candidateId: first }); // idempotent: no second ref
    expect(repo.git('rev-parse', 'refs/loop/discarded/3')).toBe(first);
    expect(repo.git('diff', '--name-only', cp.id, 'refs/loop/discarded/3')).toBe('train.py');
    expect(repo.git('show', 'refs/loop/discarded/3:train.py')).toBe('lr = 0.3');

    // The same iteration discarded again with another candidate gets a suffix.
    repo.write('train.py', 'lr = 0.4\n');
    const second = await rollback.commit(cp, info(3, 'edit 3 again', 1));
    await rollback.revert(cp, { iteration: 3, candidateId: second });
    expect(repo.git('rev-parse', 'refs/loop/discarded/3-1')).toBe(second);
    const refs = await readDiscardedRefs(repo.dir);
    expect(refs.map((r) => [r.name, r.oid, r.iteration, r.attempt])).toEqual([
      ['3', first, 3, 0],
      ['3-1', second, 3, 1],
    ]);
    // Reachable means git gc keeps it: it is listed by for-each-ref.
    expect(repo.git('for-each-ref', '--format=%(refname)', 'refs/loop/')).toBe(
      'refs/loop/discarded/3\nrefs/loop/discarded/3-1',
    );
  });

  it('revert restores files the harness modified after the commit', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.2\n');
    const id = await rollback.commit(cp, info(1));
    // The harness runs and scribbles: a tracked file the candidate did not touch, the candidate's
    // file, a deleted file, and an untracked output that is not ignored.
    repo.write('prepare.py', 'data = 999\n');
    repo.write('train.py', 'lr = 0.2 # tuned during the run\n');
    repo.remove('src/model.py');
    repo.write('outputs/model.bin', 'weights');
    repo.write('src/__pycache__/model.cpython-311.pyc', 'bytecode'); // ignored by .gitignore: survives
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.read('prepare.py')).toBe('data = 1\n');
    expect(repo.read('train.py')).toBe('lr = 0.1\n');
    expect(repo.read('src/model.py')).toBe('layers = 2\n');
    expect(repo.exists('outputs')).toBe(false);
    expect(repo.read('src/__pycache__/model.cpython-311.pyc')).toBe('bytecode');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('revert restores a symbolic link', async () => {
    const { repo, rollback } = setup();
    symlinkSync('train.py', join(repo.dir, 'current.py'));
    repo.git('add', 'current.py');
    repo.git('commit', '-q', '-m', 'link');
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    rmSync(join(repo.dir, 'current.py'));
    symlinkSync('prepare.py', join(repo.dir, 'current.py'));
    const id = await rollback.commit(cp, info(1));
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(lstatSync(join(repo.dir, 'current.py')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(repo.dir, 'current.py'))).toBe('train.py');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('revert handles a file replaced by a directory, and a directory replaced by a file', async () => {
    for (const paths of [undefined, ['prepare.py', 'src']]) {
      const { repo, rollback } = setup(paths ? { paths } : {});
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      repo.remove('prepare.py');
      repo.write('prepare.py/part1.py', 'p1\n');
      repo.remove('src/deep');
      repo.write('src/deep', 'now a file\n');
      const id = await rollback.commit(cp, info(1));
      expect(repo.git('ls-tree', '-r', '--name-only', id).split('\n')).toEqual(
        expect.arrayContaining(['prepare.py/part1.py', 'src/deep']),
      );
      await rollback.revert(cp, { iteration: 1, candidateId: id });
      expect(repo.read('prepare.py')).toBe('data = 1\n');
      expect(repo.read('src/deep/util.py')).toBe('def f(): pass\n');
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(rollback.lastRestore()?.fallback).toBe(false);
    }
  });

  it('revert is idempotent and verifies on the fast path', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.5\n');
    const id = await rollback.commit(cp, info(1));
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(rollback.lastRestore()).toMatchObject({ paths: [], fallback: false });
    expect(repo.read('train.py')).toBe('lr = 0.1\n');
    expect(await rollback.currentId()).toBe(cp.id);
  });
});

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
      '[loop] [rollback-git] working tree has uncommitted changes in notes.txt, train.py; commit or stash them, or pass allowDirty: true (loop run --allow-dirty)',
    );
    expect(error.details).toEqual({ files: ['notes.txt', 'train.py'] });
    expect(repo.git('branch', '--list', BRANCH)).toBe('');
    expect(repo.git('symbolic-ref', 'HEAD')).toBe('refs/heads/main');

    const dirtyOk = createGitResetRollback({
      watch: testSettings.watch,
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

    const resumed = createGitResetRollback({ watch: testSettings.watch, dir: repo.dir, branch: BRANCH, resume: true });
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
    const resumed = createGitResetRollback({ watch: testSettings.watch, dir: repo.dir, branch: BRANCH, resume: true });
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
      const error = await rejection(
        createGitResetRollback({ watch: testSettings.watch, dir: empty, branch: BRANCH }).start(),
      );
      expect(error.code).toBe('NOT_A_REPOSITORY');
      expect(error.message).toContain('no git repository at');
      mkdirSync(join(empty, '.git'));
      const { execFileSync } = await import('node:child_process');
      execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: empty });
      const unborn = await rejection(
        createGitResetRollback({ watch: testSettings.watch, dir: empty, branch: BRANCH }).checkpoint(1),
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
      watch: testSettings.watch,
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
    const rollback = createGitResetRollback({ watch: testSettings.watch, dir: repo.dir, fs, branch: BRANCH });
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
    const rollback = createGitResetRollback({ watch: testSettings.watch, dir: repo.dir, fs, branch: BRANCH });
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
      watch: testSettings.watch,
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

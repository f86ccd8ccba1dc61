import { existsSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { isLoopError } from '@loop/core';
import { afterEach, describe, expect, it } from 'vitest';
import { addLocalExclude, addWorktree, removeWorktree } from '../src/git-worktree.js';
import {
  changedFilesBetween,
  changedFilesSince,
  commitAll,
  commitFiles,
  commitsBetween,
  discardChanges,
  findCommitByTrailer,
  headSha,
  isAncestor,
  isDirty,
  resetHard,
  revertCommits,
  squashSince,
  trailerValue,
} from '../src/commit-ops.js';
import { runGit, type GitCliContext } from '../src/git-cli.js';
import { makeRepo, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

function repo(files: Record<string, string> = { 'a.txt': 'a\n', 'src/b.txt': 'b\n', 'test/t.test.ts': 't\n' }) {
  const r = makeRepo(files, 'loop-commit-ops-');
  repos.push(r);
  r.git('config', 'user.name', 'test');
  r.git('config', 'user.email', 'test@example.com');
  const ctx: GitCliContext = { cwd: r.dir, now: NOW, author: { name: 'loop-test', email: 'loop@test' } };
  return { r, ctx };
}

describe('commit operations over the git CLI (real temp repositories)', () => {
  it(
    'commitAll stages added, modified and deleted files in one commit and ' + 'returns null when nothing changed',
    async () => {
      const { r, ctx } = repo();
      expect(await commitAll(ctx, 'nothing')).toBeNull();
      r.write('a.txt', 'A\n');
      r.write('new.txt', 'n\n');
      r.remove('src/b.txt');
      expect(await isDirty(ctx)).toBe(true);
      const sha = await commitAll(ctx, 'change three\n\nLoop-Note: x');
      expect(sha).toBe(await headSha(ctx));
      expect(await isDirty(ctx)).toBe(false);
      expect(await commitFiles(ctx, sha!)).toEqual([
        { path: 'a.txt', status: 'modified' },
        { path: 'new.txt', status: 'added' },
        { path: 'src/b.txt', status: 'deleted' },
      ]);
    },
  );

  it('commit dates come from the injected time, so a redone commit gets the same sha', async () => {
    const { r, ctx } = repo();
    const base = await headSha(ctx);
    r.write('a.txt', 'same\n');
    const a = await commitAll(ctx, 'same');
    expect(r.git('log', '-1', '--format=%at %an')).toBe(`${NOW / 1000} loop-test`);
    await resetHard(ctx, base);
    r.write('a.txt', 'same\n');
    expect(await commitAll(ctx, 'same')).toBe(a);
  });

  it('trailerValue and findCommitByTrailer find a commit by its exact trailer value only after base', async () => {
    const { r, ctx } = repo();
    const base = await headSha(ctx);
    r.write('a.txt', '1\n');
    const first = await commitAll(ctx, 'fix 1\n\nLoop-Fix: iter-1/FIX-0011');
    r.write('a.txt', '2\n');
    const second = await commitAll(ctx, 'fix 2\n\nLoop-Note: did it\nLoop-Fix: iter-1/FIX-001');
    expect(await trailerValue(ctx, second!, 'Loop-Note')).toBe('did it');
    expect(await trailerValue(ctx, second!, 'Absent')).toBe('');
    expect(await findCommitByTrailer(ctx, base, 'Loop-Fix', 'iter-1/FIX-001')).toBe(second);
    expect(await findCommitByTrailer(ctx, base, 'Loop-Fix', 'iter-1/FIX-0011')).toBe(first);
    expect(await findCommitByTrailer(ctx, second!, 'Loop-Fix', 'iter-1/FIX-001')).toBeNull();
    expect(await commitsBetween(ctx, base)).toEqual([first, second]);
  });

  it.each(['empty', 'truncated', 'missing'])(
    'changedFilesSince gives the same answer with a %s .git/index as with a sound one, and writes nothing (issue 32)',
    async (kind) => {
      const { r, ctx } = repo();
      const base = await headSha(ctx);
      r.write('a.txt', 'changed\n');
      r.git('commit', '-qam', 'a changed');
      r.write('src/c.txt', 'c\n');
      r.write('new.txt', 'n\n');
      r.remove('test/t.test.ts');
      const sound = await changedFilesSince(ctx, base);
      expect(sound.map((f) => f.path)).toEqual(['a.txt', 'new.txt', 'src/c.txt', 'test/t.test.ts']);
      const index = join(r.dir, '.git', 'index');
      if (kind === 'missing') rmSync(index);
      else truncateSync(index, kind === 'empty' ? 0 : 60);
      const damaged = existsSync(index) ? readFileSync(index) : undefined;
      expect(await changedFilesSince(ctx, base)).toEqual(sound);
      expect(await changedFilesSince(ctx, 'HEAD')).toEqual([
        { path: 'new.txt', status: 'added' },
        { path: 'src/c.txt', status: 'added' },
        { path: 'test/t.test.ts', status: 'deleted' },
      ]);
      expect(existsSync(index) ? readFileSync(index) : undefined).toEqual(damaged);
    },
  );

  it(
    'changedFilesBetween is the net diff of a range whoever made its ' +
      'commits; changedFilesSince adds uncommitted and untracked files',
    async () => {
      const { r, ctx } = repo();
      const base = await headSha(ctx);
      r.write('a.txt', 'changed\n');
      r.git('commit', '-qam', 'made by someone else');
      r.write('src/c.txt', 'c\n');
      r.git('add', '-A');
      r.git('commit', '-qm', 'and another');
      r.write('a.txt', 'a\n'); // changed back: not in the net diff
      r.git('commit', '-qam', 'undo');
      expect(await changedFilesBetween(ctx, base)).toEqual([{ path: 'src/c.txt', status: 'added' }]);
      r.write('test/t.test.ts', 'edited\n');
      r.write('untracked.txt', 'u\n');
      r.write('.gitignore', 'ignored.log\n');
      r.write('ignored.log', 'x\n');
      expect(await changedFilesSince(ctx, base)).toEqual([
        { path: '.gitignore', status: 'added' },
        { path: 'src/c.txt', status: 'added' },
        { path: 'test/t.test.ts', status: 'modified' },
        { path: 'untracked.txt', status: 'added' },
      ]);
    },
  );

  it('listings are relative to the directory they run in (a project in a subdirectory of a repository)', async () => {
    const { r, ctx } = repo({ 'outside.txt': 'o\n', 'proj/src/a.txt': 'a\n' });
    const base = await headSha(ctx);
    r.write('outside.txt', 'changed\n');
    r.write('proj/src/a.txt', 'changed\n');
    r.write('proj/new.txt', 'n\n');
    const sub: GitCliContext = { ...ctx, cwd: join(r.dir, 'proj') };
    expect(await changedFilesSince(sub, base)).toEqual([
      { path: 'new.txt', status: 'added' },
      { path: 'src/a.txt', status: 'modified' },
    ]);
    const sha = await commitAll(ctx, 'both');
    expect(await commitFiles(sub, sha!)).toEqual([
      { path: 'new.txt', status: 'added' },
      { path: 'src/a.txt', status: 'modified' },
    ]);
    expect((await changedFilesBetween(sub, base)).map((f) => f.path)).toEqual(['new.txt', 'src/a.txt']);
  });

  it('squashSince folds commits made after base and uncommitted changes into one commit on base', async () => {
    const { r, ctx } = repo();
    const base = await headSha(ctx);
    r.write('a.txt', 'by the agent\n');
    r.git('commit', '-qam', 'agent commit 1');
    r.write('src/b.txt', 'agent 2\n');
    r.git('commit', '-qam', 'agent commit 2');
    r.write('new.txt', 'left uncommitted\n');
    const sha = await squashSince(ctx, base, 'one FIX\n\nLoop-Fix: iter-1/FIX-001');
    expect(await commitsBetween(ctx, base)).toEqual([sha]);
    expect((await commitFiles(ctx, sha!)).map((f) => f.path)).toEqual(['a.txt', 'new.txt', 'src/b.txt']);
    expect(await isDirty(ctx)).toBe(false);
    // Nothing since base: null, HEAD stays.
    expect(await squashSince(ctx, sha!, 'empty')).toBeNull();
    expect(await headSha(ctx)).toBe(sha);
  });

  it('squashSince refuses a base that is not an ancestor of HEAD and touches nothing (RESTORE_FAILED)', async () => {
    const { r, ctx } = repo();
    const base = await headSha(ctx);
    r.write('a.txt', 'side\n');
    const side = await commitAll(ctx, 'side');
    r.git('reset', '-q', '--hard', base);
    r.write('a.txt', 'dirty\n');
    const error = await squashSince(ctx, side!, 'x').catch((e: unknown) => e);
    expect(isLoopError(error) && error.code).toBe('RESTORE_FAILED');
    expect(await headSha(ctx)).toBe(base);
    expect(r.read('a.txt')).toBe('dirty\n');
    expect(await isAncestor(ctx, base, side!)).toBe(true);
    expect(await isAncestor(ctx, side!, base)).toBe(false);
  });

  it(
    'resetHard drops commits, changes and untracked files but keeps ignored ' + 'files; discardChanges keeps commits',
    async () => {
      const { r, ctx } = repo({ 'a.txt': 'a\n', '.gitignore': 'run.log\n' });
      const base = await headSha(ctx);
      r.write('run.log', 'keep me\n');
      r.write('a.txt', 'committed\n');
      const kept = await commitAll(ctx, 'kept');
      r.write('a.txt', 'dirty\n');
      r.write('junk/x.txt', 'x\n');
      await discardChanges(ctx);
      expect(await headSha(ctx)).toBe(kept);
      expect(r.read('a.txt')).toBe('committed\n');
      expect(r.exists('junk')).toBe(false);
      await resetHard(ctx, base);
      expect(await headSha(ctx)).toBe(base);
      expect(r.read('a.txt')).toBe('a\n');
      expect(r.read('run.log')).toBe('keep me\n');
    },
  );

  it('revertCommits reverts single commits as git revert does, in one commit, leaving the others', async () => {
    const { r, ctx } = repo();
    r.write('src/one.txt', '1\n');
    const one = await commitAll(ctx, 'one');
    r.write('a.txt', 'two\n');
    const two = await commitAll(ctx, 'two');
    r.write('src/three.txt', '3\n');
    const three = await commitAll(ctx, 'three');
    // A last paragraph git would not parse as trailers ("Reverts ..." lines): still found by its line.
    const sha = await revertCommits(
      ctx,
      [one!, three!],
      `revert one and three\n\nReverts FIX-001 ${one}\nReverts FIX-003 ${three}\nLoop-Revert: iter-1`,
    );
    expect(await findCommitByTrailer(ctx, one!, 'Loop-Revert', 'iter-1')).toBe(sha);
    expect(await headSha(ctx)).toBe(sha);
    expect(r.exists('src/one.txt')).toBe(false);
    expect(r.exists('src/three.txt')).toBe(false);
    expect(r.read('a.txt')).toBe('two\n');
    expect(await trailerValue(ctx, sha, 'Loop-Revert')).toBe('iter-1');
    expect(await commitsBetween(ctx, two!)).toEqual([three, sha]);
  });

  it('a revert that conflicts is RESTORE_FAILED naming the command', async () => {
    const { r, ctx } = repo();
    r.write('a.txt', 'x\n');
    const first = await commitAll(ctx, 'first');
    r.write('a.txt', 'y\n');
    await commitAll(ctx, 'second');
    const error = await revertCommits(ctx, [first!], 'revert').catch((e: unknown) => e);
    expect(isLoopError(error) && error.code).toBe('RESTORE_FAILED');
    expect((error as Error).message).toContain('git revert --no-commit');
    await runGit(ctx, ['revert', '--abort']);
  });

  it('runGit outside a repository is NOT_A_REPOSITORY with git stderr and the directory', async () => {
    const error = await headSha({ cwd: '/' }).catch((e: unknown) => e);
    expect(isLoopError(error) && error.code).toBe('NOT_A_REPOSITORY');
    expect((error as Error).message).toMatch(
      /^\[loop\] \[rollback-git\] git rev-parse HEAD failed in \/: fatal: not a git repository/,
    );
  });
});

describe('linked worktrees over the git CLI', () => {
  it('addWorktree creates a worktree on a new branch, is idempotent, and every commit op works inside it', async () => {
    const { r, ctx } = repo();
    const path = join(r.dir, '.worktrees', 'run-1');
    expect(await addLocalExclude(ctx, '/.worktrees/')).toBe(true);
    expect(await addLocalExclude(ctx, '/.worktrees/')).toBe(false);
    expect(await addWorktree(ctx, path, 'run/1')).toEqual({ path, created: true });
    expect(await addWorktree(ctx, path, 'run/1')).toEqual({ path, created: false });
    expect(r.git('status', '--porcelain')).toBe(''); // the user's checkout stays clean
    const wt: GitCliContext = { ...ctx, cwd: path };
    const base = await headSha(wt);
    expect(readFileSync(join(path, 'a.txt'), 'utf8')).toBe('a\n');
    r.write('.worktrees/run-1/a.txt', 'in the worktree\n');
    const sha = await commitAll(wt, 'wt commit');
    expect(await changedFilesBetween(wt, base, sha!)).toEqual([{ path: 'a.txt', status: 'modified' }]);
    expect(r.git('rev-parse', 'run/1')).toBe(sha);
    expect(r.read('a.txt')).toBe('a\n');
    await removeWorktree(ctx, path, { force: true });
    expect(existsSync(path)).toBe(false);
    expect(r.git('rev-parse', 'run/1')).toBe(sha); // the branch stays
    await removeWorktree(ctx, path);
  });
});

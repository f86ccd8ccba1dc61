import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { commitPaths } from '../src/commit-paths.js';
import { type GitCliContext } from '../src/git-cli.js';
import { makeRepo, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

function repo(): { r: TempRepo; ctx: GitCliContext } {
  const r = makeRepo(
    { 'a.txt': 'a\n', '.gitignore': 'projects/\n', 'eval/config/list.txt': 'x\n' },
    'loop-commit-paths-',
  );
  repos.push(r);
  return { r, ctx: { cwd: r.dir, now: Date.UTC(2026, 0, 2), author: { name: 'loop-test', email: 'loop@test' } } };
}

it('commits exactly the named files with the message, leaving other changes (staged or not) uncommitted', async () => {
  const { r, ctx } = repo();
  r.write('a.txt', 'a2\n');
  r.write('eval/config/list.txt', 'x\ny\n');
  r.write('other.txt', 'not mine\n');
  r.git('add', 'other.txt');
  const report = await commitPaths(ctx, [join(r.dir, 'eval/config/list.txt')], 'chore: list');
  expect(report).toEqual({ commit: r.git('rev-parse', 'HEAD'), staged: ['eval/config/list.txt'], skipped: [] });
  expect(r.git('show', '--name-only', '--format=%s|%an', 'HEAD')).toBe('chore: list|loop-test\n\neval/config/list.txt');
  expect(r.git('status', '--porcelain')).toBe(' M a.txt\nA  other.txt');
});

it(
  'skips paths outside the working tree and untracked files the ' + 'repository ignores; nothing left makes no commit',
  async () => {
    const { r, ctx } = repo();
    r.write('projects/autotune/meta/loop_state.json', '{}\n');
    const head = r.git('rev-parse', 'HEAD');
    const report = await commitPaths(
      ctx,
      [join(r.dir, 'projects/autotune/meta/loop_state.json'), '/elsewhere/file.txt', 'missing.txt'],
      'chore: state',
    );
    expect(report).toEqual({
      commit: null,
      staged: [],
      skipped: ['/elsewhere/file.txt', 'projects/autotune/meta/loop_state.json', 'missing.txt'],
    });
    expect(r.git('rev-parse', 'HEAD')).toBe(head);
  },
);

it('a second call with nothing new makes no commit, so a commit re-run after a kill is made once', async () => {
  const { r, ctx } = repo();
  r.write('a.txt', 'changed\n');
  const first = await commitPaths(ctx, ['a.txt'], 'chore: once');
  const second = await commitPaths(ctx, ['a.txt'], 'chore: once');
  expect(first.commit).not.toBeNull();
  expect(second.commit).toBeNull();
  expect(r.git('log', '--format=%s')).toBe('chore: once\ninitial');
});

it('a named tracked file that was deleted is committed as a deletion', async () => {
  const { r, ctx } = repo();
  r.remove('a.txt');
  await commitPaths(ctx, ['a.txt'], 'chore: drop a');
  expect(r.git('show', '--name-status', '--format=%s', 'HEAD')).toBe('chore: drop a\n\nD\ta.txt');
});

it("a directory that is not a repository is NOT_A_REPOSITORY with git's message", async () => {
  await expect(commitPaths({ cwd: '/' }, ['etc/hostname'], 'm')).rejects.toMatchObject({
    code: 'NOT_A_REPOSITORY',
    message: expect.stringMatching(/not a git repository/i),
  });
});

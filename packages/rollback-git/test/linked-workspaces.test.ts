// A workspace whose `.git` is a file (issue 32 item 7): a linked worktree (`git worktree add`,
// HEAD and index in `<repo>/.git/worktrees/<name>`, objects and refs shared) and a submodule
// (`gitdir: ../.git/modules/<name>`). The rollback works there as in a plain repository and
// never touches the main worktree's HEAD or index; a `.git` file naming nothing is a coded error.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback, readDiscardedRefs } from '../src/index.js';
import { gitDirOf } from '../src/git-dir-of.js';
import { makeRepo, steppingClock, type TempRepo } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const identity = ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'protocol.file.allow=always'];
const gitIn = (dir: string, ...args: string[]) =>
  execFileSync('git', [...identity, ...args], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trimEnd();

function mainRepo(): TempRepo {
  const repo = makeRepo({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
  cleanups.push(repo.cleanup);
  return repo;
}

/** A linked worktree of a fresh repository, on its own branch. */
function linkedWorktree(): { main: TempRepo; dir: string } {
  const main = mainRepo();
  const dir = join(mkdtempSync(join(tmpdir(), 'loop-linked-')), 'wt');
  cleanups.push(() => rmSync(join(dir, '..'), { recursive: true, force: true }));
  main.git('worktree', 'add', '-q', '-b', 'experiments', dir);
  return { main, dir };
}

/** A superproject with the fresh repository as submodule `sub`; returns the submodule's folder. */
function submodule(): { dir: string; superDir: string } {
  const source = mainRepo();
  const superDir = mkdtempSync(join(tmpdir(), 'loop-super-'));
  cleanups.push(() => rmSync(superDir, { recursive: true, force: true }));
  gitIn(superDir, 'init', '-q', '-b', 'main');
  gitIn(superDir, 'submodule', 'add', '-q', source.dir, 'sub');
  gitIn(superDir, 'commit', '-qm', 'add sub');
  return { dir: join(superDir, 'sub'), superDir };
}

/** One keep and one revert (a file added, one edited) in `dir`; checks the tree and git's view. */
async function keepAndRevert(dir: string): Promise<string> {
  const rollback = createGitResetRollback({ dir, branch: 'run/linked', clock: steppingClock() });
  await rollback.start();
  const cp1 = await rollback.checkpoint(1);
  writeFileSync(join(dir, 'a.txt'), 'kept\n');
  const kept = await rollback.keep(cp1, await rollback.commit(cp1, { iteration: 1, attempt: 0, description: 'kept' }));
  const cp2 = await rollback.checkpoint(2);
  writeFileSync(join(dir, 'a.txt'), 'discarded\n');
  writeFileSync(join(dir, 'new.txt'), 'new\n');
  const discarded = await rollback.commit(cp2, { iteration: 2, attempt: 0, description: 'discarded' });
  await rollback.revert(cp2, { iteration: 2, candidateId: discarded });
  expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('kept\n');
  expect(gitIn(dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/run/linked');
  expect(gitIn(dir, 'rev-parse', 'HEAD')).toBe(kept);
  expect(gitIn(dir, 'status', '--porcelain')).toBe('');
  expect(gitIn(dir, 'fsck', '--no-progress', '--no-dangling')).toBe('');
  expect((await readDiscardedRefs(dir)).map((r) => [r.name, r.oid])).toEqual([['2', discarded]]);
  // A resume in the same workspace (a torn index repaired in the worktree's own directory).
  writeFileSync(join(gitDirOf(dir), 'index'), '');
  const resumed = createGitResetRollback({ dir, branch: 'run/linked', resume: true, clock: steppingClock() });
  expect((await resumed.start()).repairs).toEqual([`index (torn) rebuilt from ${kept.slice(0, 7)}`]);
  await resumed.recover(kept);
  expect(gitIn(dir, 'status', '--porcelain')).toBe('');
  return kept;
}

describe('a workspace whose .git is a file', () => {
  it(
    'a linked worktree (git worktree add): keep, revert and resume work, and ' +
      'the main worktree keeps its HEAD, index and files',
    async () => {
      const { main, dir } = linkedWorktree();
      const mainHead = main.git('rev-parse', 'HEAD');
      const mainIndex = readFileSync(join(main.dir, '.git', 'index'));
      expect(gitDirOf(dir)).toBe(join(main.dir, '.git', 'worktrees', 'wt'));
      const kept = await keepAndRevert(dir);
      expect(main.git('symbolic-ref', 'HEAD')).toBe('refs/heads/main');
      expect(main.git('rev-parse', 'HEAD')).toBe(mainHead);
      expect(readFileSync(join(main.dir, '.git', 'index'))).toEqual(mainIndex);
      expect(main.git('status', '--porcelain')).toBe('');
      expect(main.read('a.txt')).toBe('a\n');
      // The run branch and the discarded ref are in the shared repository.
      expect(main.git('rev-parse', 'refs/heads/run/linked')).toBe(kept);
      expect(main.git('for-each-ref', '--format=%(refname)', 'refs/loop/discarded/')).toBe('refs/loop/discarded/2');
    },
  );

  it(
    'a submodule (gitdir: ../.git/modules/sub): keep, revert and resume work ' +
      'in the repository the .git file names',
    async () => {
      const { dir, superDir } = submodule();
      expect(gitDirOf(dir)).toBe(join(superDir, '.git', 'modules', 'sub'));
      const kept = await keepAndRevert(dir);
      expect(gitIn(join(superDir, '.git', 'modules', 'sub'), 'rev-parse', 'refs/heads/run/linked')).toBe(kept);
      // the superproject sees the submodule's new commit
      expect(gitIn(superDir, 'status', '--porcelain')).toBe(' M sub');
    },
  );

  it('a .git file that names no repository is NOT_A_REPOSITORY saying what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loop-dangling-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, '.git'), 'gitdir: /nowhere/.git/worktrees/gone\n');
    const rollback = createGitResetRollback({ dir, branch: 'run/linked' });
    await expect(rollback.start()).rejects.toMatchObject({
      code: 'NOT_A_REPOSITORY',
      message: expect.stringContaining('git worktree repair'),
    });
  });
});

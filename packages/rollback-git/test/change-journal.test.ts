// Issue 31: with `watch`, a scan stats only what inotify reported touched; whatever the watch may
// have missed is still found before a keep or a revert is declared exact, by a whole-tree walk.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback, type GitResetRollbackOptions } from '../src/index.js';
import { makeRepo, steppingClock, type TempRepo } from './helpers.js';

const BRANCH = 'auto-iterate/watch';
const repos: TempRepo[] = [];
const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  for (const repo of repos.splice(0)) repo.cleanup();
});

const FILES = { 'a.txt': 'a\n', 'src/b.txt': 'b\n', 'src/deep/c.txt': 'c\n', '.gitignore': 'out/\n' };

async function setup(options: Partial<GitResetRollbackOptions> = {}) {
  const repo = makeRepo(FILES);
  repos.push(repo);
  const rollback = createGitResetRollback({
    dir: repo.dir,
    branch: BRANCH,
    clock: steppingClock(),
    watch: true,
    ...options,
  });
  stops.push(rollback.stopWatching);
  await rollback.start(); // the first whole-tree walk puts the watches in place
  return { repo, rollback };
}

describe('change detection with watch (issue 31)', () => {
  it('after the first walk, an edit and its revert are found by stat-ing only the touched paths', async () => {
    const { repo, rollback } = await setup();
    for (let i = 1; i <= 3; i += 1) {
      const cp = await rollback.checkpoint(i);
      repo.write('src/deep/c.txt', `c${i}\n`);
      expect(await rollback.changedPaths()).toEqual(['src/deep/c.txt']);
      await rollback.commit(cp, { iteration: i, attempt: 0, description: `edit ${i}` });
      repo.write('a.txt', `harness wrote ${i}\n`); // a write after the commit, as a hostile harness does
      await rollback.revert(cp, { iteration: i });
      // (--no-optional-locks: git status would refresh the index, which the journal must then distrust)
      expect(repo.git('--no-optional-locks', 'status', '--porcelain')).toBe('');
      expect(repo.read('a.txt')).toBe('a\n');
    }
    const report = rollback.watchReport();
    expect(report?.full).toBe(1);
    expect(report?.partial).toBeGreaterThanOrEqual(6);
  });

  it(
    'a possible queue overflow (more events than overflowAt) falls back to a ' +
      'whole-tree walk that still finds every change',
    async () => {
      const { repo, rollback } = await setup({ watchLimits: { overflowAt: 2 } });
      repo.write('src/b.txt', 'b2\n');
      repo.write('src/new.txt', 'n\n');
      repo.write('a.txt', 'a2\n');
      expect(await rollback.changedPaths()).toEqual(['a.txt', 'src/b.txt', 'src/new.txt']);
      expect(rollback.watchReport()?.lastFallback).toMatch(/overflow/);
      expect(rollback.watchReport()?.full).toBe(2);
    },
  );

  it(
    'files written into a new directory before its watch existed are found, ' + 'and so are later edits inside it',
    async () => {
      const { repo, rollback } = await setup();
      mkdirSync(join(repo.dir, 'x/y/z'), { recursive: true });
      writeFileSync(join(repo.dir, 'x/y/z/deep.txt'), '1\n');
      writeFileSync(join(repo.dir, 'x/top.txt'), '1\n');
      expect(await rollback.changedPaths()).toEqual(['x/top.txt', 'x/y/z/deep.txt']);
      writeFileSync(join(repo.dir, 'x/y/z/more.txt'), '2\n');
      expect(await rollback.changedPaths()).toEqual(['x/top.txt', 'x/y/z/deep.txt', 'x/y/z/more.txt']);
      expect(rollback.watchReport()?.full).toBe(1);
    },
  );

  it(
    'a renamed directory (a watch follows the inode) is reported under its ' +
      'new name, and edits inside it after the rename too',
    async () => {
      const { repo, rollback } = await setup();
      renameSync(join(repo.dir, 'src'), join(repo.dir, 'lib'));
      expect(await rollback.changedPaths()).toEqual(['lib/b.txt', 'lib/deep/c.txt', 'src/b.txt', 'src/deep/c.txt']);
      writeFileSync(join(repo.dir, 'lib/deep/c.txt'), 'changed after the rename\n');
      writeFileSync(join(repo.dir, 'lib/deep/d.txt'), 'new\n');
      expect(await rollback.changedPaths()).toEqual([
        'lib/b.txt',
        'lib/deep/c.txt',
        'lib/deep/d.txt',
        'src/b.txt',
        'src/deep/c.txt',
      ]);
      const cp = await rollback.checkpoint(1);
      await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'rename' });
      await rollback.revert(cp, { iteration: 1 });
      expect(repo.git('--no-optional-locks', 'status', '--porcelain')).toBe('');
      expect(rollback.watchReport()?.full).toBe(1);
    },
  );

  it('a .gitignore edit walks the whole tree, so a file it no longer ignores is found', async () => {
    const { repo, rollback } = await setup();
    repo.write('out/result.bin', 'r\n');
    expect(await rollback.changedPaths()).toEqual([]);
    repo.write('.gitignore', '# nothing ignored\n');
    expect(await rollback.changedPaths()).toEqual(['.gitignore', 'out/result.bin']);
    expect(rollback.watchReport()?.lastFallback).toMatch(/\.gitignore/);
  });

  it('an index written by another program (git add) makes the next scan walk the whole tree', async () => {
    const { repo, rollback } = await setup();
    repo.write('src/b.txt', 'staged by hand\n');
    repo.git('add', 'src/b.txt');
    expect(await rollback.changedPaths()).toEqual(['src/b.txt']);
    expect(rollback.watchReport()?.lastFallback).toMatch(/index/);
  });

  it(
    'after stopWatching (as after a restart) every scan walks the whole ' + 'tree and still finds every change',
    async () => {
      const { repo, rollback } = await setup();
      rollback.stopWatching();
      repo.write('a.txt', 'edited while nobody watched\n');
      expect(await rollback.changedPaths()).toEqual(['a.txt']);
      expect(rollback.watchReport()).toBeUndefined();
    },
  );
});

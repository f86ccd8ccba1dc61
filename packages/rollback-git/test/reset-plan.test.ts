import nodeFs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { GitFs } from '../src/index.js';
import { applyFastReset } from '../src/internal/fast-reset.js';
import { openRepo } from '../src/internal/repo.js';
import { planReset } from '../src/internal/reset-plan.js';
import { makeRepo, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

/** A repository whose second commit changes a.txt and dir/b.txt and adds c.txt. */
function twoCommits(): TempRepo {
  const repo = makeRepo({ 'a.txt': 'a\n', 'dir/b.txt': 'b\n', 'keep.txt': 'k\n' }, 'loop-reset-plan-');
  repos.push(repo);
  repo.write('a.txt', 'a2\n');
  repo.write('dir/b.txt', 'b2\n');
  repo.write('c.txt', 'c\n');
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'second');
  return repo;
}

/** openRepo over node:fs, counting `readFile` of working-tree paths (relative). */
function countingRepo(dir: string) {
  const reads: string[] = [];
  const promises = new Proxy(nodeFs.promises, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const path = String(args[0]);
        if (prop === 'readFile' && path.startsWith(`${dir}/`) && !path.startsWith(`${dir}/.git/`))
          reads.push(path.slice(dir.length + 1));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { repo: openRepo({ promises } as unknown as GitFs, dir), reads };
}

describe('reset plan: what the whole-tree scan already knows about the working tree', () => {
  it(
    'a path of the commit diff the scan found unchanged is known to differ ' +
      'from the target; an untracked file (oid not computed) is not known',
    async () => {
      const repo = twoCommits();
      repo.write('untracked.txt', 'u\n');
      const r = openRepo(nodeFs, repo.dir);
      const from = repo.git('rev-parse', 'HEAD');
      const target = repo.git('rev-parse', 'HEAD~1');
      const { entries } = await planReset(r, from, target, undefined);
      const byPath = Object.fromEntries(entries.map((e) => [e.path, e.worktreeDiffers]));
      expect(byPath).toEqual({ 'a.txt': true, 'c.txt': true, 'dir/b.txt': true, 'untracked.txt': undefined });
      // With explicit paths the scan does not cover the whole tree: nothing is claimed for the diff.
      const scoped = await planReset(r, from, target, ['a.txt']);
      expect(scoped.entries.find((e) => e.path === 'dir/b.txt')?.worktreeDiffers).toBeUndefined();
    },
  );

  it(
    'the fast reset writes a path known to differ without reading it first, ' +
      'and the result is what git reset --hard gives (git status clean)',
    async () => {
      const repo = twoCommits();
      const { repo: r, reads } = countingRepo(repo.dir);
      const from = repo.git('rev-parse', 'HEAD');
      const target = repo.git('rev-parse', 'HEAD~1');
      const plan = await planReset(r, from, target, undefined);
      reads.length = 0;
      await applyFastReset(r, plan.entries, 'refs/heads/main', target, plan.basis);
      expect(reads).toEqual([]);
      expect(repo.git('rev-parse', 'HEAD')).toBe(target);
      expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('');
      expect(repo.read('a.txt')).toBe('a\n');
      expect(repo.exists('c.txt')).toBe(false);
    },
  );
});

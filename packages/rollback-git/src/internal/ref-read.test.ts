import nodeFs from 'node:fs';
import git from 'isomorphic-git';
import { memfs } from 'memfs';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, type TempRepo } from '../../test/helpers.js';
import type { GitFs } from '../git-fs.js';
import { DISCARDED_NAMESPACE, saveDiscarded } from './discarded-refs.js';
import { readRefExact, resolveRefFast } from './ref-read.js';
import { openRepo, type Repo } from './repo.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});
const tempRepo = (): TempRepo => {
  const repo = makeRepo({ 'a.txt': 'a\n' }, 'loop-ref-read-');
  repos.push(repo);
  repo.write('b.txt', 'b\n');
  repo.git('add', 'b.txt');
  repo.git('commit', '-q', '-m', 'second');
  return repo;
};

/** Every (ref, depth) the rollback asks, resolved by us and by isomorphic-git. */
async function bothWays(
  r: Repo,
  refs: readonly string[],
): Promise<Array<[string, number | undefined, string, string]>> {
  const rows: Array<[string, number | undefined, string, string]> = [];
  for (const ref of refs) {
    for (const depth of [undefined, 1, 2, 3]) {
      const theirs = await git
        .resolveRef({ fs: nodeFs, dir: r.dir, ref, ...(depth === undefined ? {} : { depth }) })
        .catch((e: Error) => `throws ${(e as { code?: string }).code}`);
      const ours = await resolveRefFast(r, ref, depth).catch((e: Error) => `throws ${(e as { code?: string }).code}`);
      rows.push([ref, depth, ours, theirs]);
    }
  }
  return rows;
}

describe('ref reads: full names from their loose files, isomorphic-git for the rest', () => {
  it(
    "HEAD and refs/... resolve as isomorphic-git's resolveRef does at every " +
      'depth (symbolic HEAD, detached HEAD, a missing ref)',
    async () => {
      const repo = tempRepo();
      repo.git('update-ref', `${DISCARDED_NAMESPACE}/1`, 'HEAD~1');
      const r = openRepo(nodeFs, repo.dir);
      const refs = ['HEAD', 'refs/heads/main', `${DISCARDED_NAMESPACE}/1`, 'refs/heads/missing'];
      const symbolic = await bothWays(r, refs);
      for (const [, , ours, theirs] of symbolic) expect(ours).toBe(theirs);
      expect(await resolveRefFast(r, 'HEAD', 2)).toBe('refs/heads/main');
      expect(await resolveRefFast(r, 'HEAD')).toBe(repo.git('rev-parse', 'HEAD'));
      await expect(resolveRefFast(r, 'refs/heads/missing')).rejects.toMatchObject({ code: 'NotFoundError' });
      repo.git('checkout', '-q', '--detach', 'HEAD~1');
      const detached = await bothWays(r, ['HEAD']);
      for (const [, , ours, theirs] of detached) expect(ours).toBe(theirs);
      expect(await resolveRefFast(r, 'HEAD', 2)).toBe(repo.git('rev-parse', 'HEAD'));
    },
  );

  it(
    'packed refs (after git gc) still resolve: the branch, HEAD through it, ' +
      'and readRefExact of a packed discarded ref; a fresh name is absent',
    async () => {
      const repo = tempRepo();
      repo.git('update-ref', `${DISCARDED_NAMESPACE}/7`, 'HEAD~1');
      repo.git('gc', '-q');
      const r = openRepo(nodeFs, repo.dir);
      expect(nodeFs.existsSync(`${repo.dir}/.git/refs/heads/main`)).toBe(false);
      const tip = repo.git('rev-parse', 'HEAD');
      expect(await resolveRefFast(r, 'refs/heads/main')).toBe(tip);
      expect(await resolveRefFast(r, 'HEAD')).toBe(tip);
      expect(await resolveRefFast(r, 'HEAD', 2)).toBe('refs/heads/main');
      expect(await readRefExact(r, `${DISCARDED_NAMESPACE}/7`)).toBe(repo.git('rev-parse', 'HEAD~1'));
      expect(await readRefExact(r, `${DISCARDED_NAMESPACE}/8`)).toBeUndefined();
    },
  );

  it(
    'saveDiscarded skips a name taken by another commit (packed or loose), ' +
      'reuses one at the same oid, and writes the first free name',
    async () => {
      const repo = tempRepo();
      const first = repo.git('rev-parse', 'HEAD~1');
      const second = repo.git('rev-parse', 'HEAD');
      repo.git('update-ref', `${DISCARDED_NAMESPACE}/3`, first);
      repo.git('pack-refs', '--all');
      repo.git('update-ref', `${DISCARDED_NAMESPACE}/3-1`, first);
      const r = openRepo(nodeFs, repo.dir);
      expect(await saveDiscarded(r, '3', second)).toBe(`${DISCARDED_NAMESPACE}/3-2`);
      expect(repo.git('rev-parse', `${DISCARDED_NAMESPACE}/3-2`)).toBe(second);
      expect(await saveDiscarded(r, '3', first)).toBe(`${DISCARDED_NAMESPACE}/3`);
      expect(await saveDiscarded(r, '3', second)).toBe(`${DISCARDED_NAMESPACE}/3-2`);
      expect(repo.git('for-each-ref', '--format=%(refname)', DISCARDED_NAMESPACE).split('\n')).toHaveLength(3);
    },
  );

  it('on memfs: HEAD, the branch and a missing ref resolve as isomorphic-git resolves them', async () => {
    const { fs } = memfs();
    const dir = '/work/ref-read-memfs';
    await git.init({ fs, dir, defaultBranch: 'main' });
    fs.writeFileSync(`${dir}/a.txt`, 'a\n');
    await git.add({ fs, dir, filepath: 'a.txt' });
    await git.commit({ fs, dir, message: 'm', author: { name: 't', email: 't@example.com', timestamp: 0 } });
    const r = openRepo(fs as unknown as GitFs, dir);
    const rows: Array<[string, string]> = [];
    for (const ref of ['HEAD', 'refs/heads/main', 'refs/heads/nope']) {
      for (const depth of [undefined, 2]) {
        const theirs = await git
          .resolveRef({ fs, dir, ref, ...(depth === undefined ? {} : { depth }) })
          .catch(() => 'throws');
        rows.push([await resolveRefFast(r, ref, depth).catch(() => 'throws'), theirs]);
      }
    }
    for (const [ours, theirs] of rows) expect(ours).toBe(theirs);
    expect(rows[1]![0]).toBe('refs/heads/main');
  });
});

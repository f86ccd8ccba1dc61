import nodeFs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, type TempRepo } from '../../test/helpers.js';
import { DirectoryListings, EntryKind, RACY_DIRECTORY_MS } from './dir-listing.js';
import { openRepo } from './repo.js';
import { scanWorktree } from './worktree-scan.js';
import { listingsOf } from './worktree-walk.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

function repoWith(files: Record<string, string>): TempRepo {
  const repo = makeRepo(files);
  repos.push(repo);
  return repo;
}

/** A clock a minute ahead of the file system's: every directory looks old enough to trust. */
const later = () => Date.now() + 60_000;
const headOf = (repo: TempRepo) => repo.git('rev-parse', 'HEAD');

describe('directory listings kept between walks (issue 13: an unchanged directory is not read again)', () => {
  it('an unchanged directory is listed from the kept entries: one readdir, then reuses', () => {
    const repo = repoWith({ 'a/x.txt': 'x\n', 'a/y.txt': 'y\n' });
    const listings = new DirectoryListings(later);
    listings.beginWalk();
    const first = listings.list('a', `${repo.dir}/a`);
    listings.beginWalk();
    const second = listings.list('a', `${repo.dir}/a`);
    expect(second).toBe(first);
    expect(listings.counts).toEqual({ read: 1, reused: 1 });
    expect(first!.map((e) => [e.path, e.kind]).sort()).toEqual([
      ['a/x.txt', EntryKind.File],
      ['a/y.txt', EntryKind.File],
    ]);
  });

  it('a file created in a kept directory is listed, even when its mtime is set back (the ctime moved)', () => {
    const repo = repoWith({ 'a/x.txt': 'x\n' });
    const listings = new DirectoryListings(later);
    listings.beginWalk();
    listings.list('a', `${repo.dir}/a`);
    const before = nodeFs.lstatSync(`${repo.dir}/a`);
    repo.write('a/new.txt', 'new\n');
    nodeFs.utimesSync(`${repo.dir}/a`, before.atime, before.mtime);
    listings.beginWalk();
    expect(
      listings
        .list('a', `${repo.dir}/a`)!
        .map((e) => e.path)
        .sort(),
    ).toEqual(['a/new.txt', 'a/x.txt']);
    expect(listings.counts).toEqual({ read: 2, reused: 0 });
  });

  it(
    `a directory whose times are within ${RACY_DIRECTORY_MS} ms of its read ` + `is read again next time (racy git)`,
    () => {
      const repo = repoWith({ 'a/x.txt': 'x\n' });
      const mtime = nodeFs.lstatSync(`${repo.dir}/a`).mtimeMs;
      const listings = new DirectoryListings(() => mtime + RACY_DIRECTORY_MS / 2);
      listings.beginWalk();
      listings.list('a', `${repo.dir}/a`);
      listings.beginWalk();
      listings.list('a', `${repo.dir}/a`);
      expect(listings.counts).toEqual({ read: 2, reused: 0 });
    },
  );

  it(
    'a removed directory lists as undefined and its kept listing is dropped; ' +
      'a listing no walk used is dropped at the next walk',
    () => {
      const repo = repoWith({ 'a/x.txt': 'x\n', 'b/y.txt': 'y\n' });
      const listings = new DirectoryListings(later);
      listings.beginWalk();
      listings.list('a', `${repo.dir}/a`);
      listings.list('b', `${repo.dir}/b`);
      repo.remove('a');
      listings.beginWalk();
      expect(listings.list('a', `${repo.dir}/a`)).toBeUndefined();
      listings.beginWalk(); // b not used in the last walk: dropped now
      listings.list('b', `${repo.dir}/b`);
      expect(listings.counts).toEqual({ read: 3, reused: 0 });
    },
  );

  it(
    'a whole-tree scan with kept listings still finds every change: an edit ' +
      'in place, a new file, a new directory, a removal, a file turned into a ' +
      'directory',
    async () => {
      const repo = repoWith({ 'a/x.txt': 'x\n', 'a/y.txt': 'y\n', 'b/z.txt': 'z\n', 'c/w.txt': 'w\n' });
      const r = openRepo(nodeFs, repo.dir);
      const listings = listingsOf(r, later);
      expect(await scanWorktree(r, headOf(repo), undefined)).toEqual([]);
      expect(await scanWorktree(r, headOf(repo), undefined)).toEqual([]);
      expect(listings.counts.reused).toBeGreaterThan(0);
      repo.write('a/x.txt', 'edited\n'); // in place: a's times do not move
      repo.write('b/new.txt', 'new\n');
      repo.write('b/sub/deep.txt', 'deep\n');
      repo.remove('c/w.txt');
      repo.remove('a/y.txt');
      repo.write('a/y.txt/inner.txt', 'inner\n');
      const paths = (await scanWorktree(r, headOf(repo), undefined)).map((c) => c.path);
      expect(paths).toEqual(['a/x.txt', 'a/y.txt', 'a/y.txt/inner.txt', 'b/new.txt', 'b/sub/deep.txt', 'c/w.txt']);
    },
  );
});

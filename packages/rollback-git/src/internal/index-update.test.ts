import nodeFs from 'node:fs';
import git from 'isomorphic-git';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, type TempRepo } from '../../test/helpers.js';
import { loadIndexState } from './index-state.js';
import { DEFER_LIMIT, flushIndex, updateIndex } from './index-update.js';
import { openRepo } from './repo.js';
import { scanWorktree } from './worktree-scan.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

function repoWith(count: number): TempRepo {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i += 1)
    files[`d${String(Math.floor(i / 100)).padStart(3, '0')}/f${i}.txt`] = `file ${i}\n`;
  const repo = makeRepo(files);
  repos.push(repo);
  return repo;
}

const blobOf = async (dir: string, content: string) =>
  (await git.hashBlob({ object: new TextEncoder().encode(content) })).oid;

describe('updateIndex (issue 13: the index is parsed once and patched in place)', () => {
  it(
    'an update of existing entries patches them in place: git reads the new ' +
      'oid, git status and git fsck are clean, the file is not read again',
    async () => {
      const repo = repoWith(300);
      const r = openRepo(nodeFs, repo.dir);
      // The git CLI's index carries a cache tree (TREE), which would describe the old blobs: it is
      // left out of what is kept, so even the first update patches in place, and writes no TREE.
      const first = await loadIndexState(r);
      expect(first?.offsets).toBeDefined();
      const entry = first!.entries.get('d000/f0.txt')!;
      await updateIndex(
        r,
        [
          {
            path: entry.path,
            blob: { oid: entry.oid, mode: entry.mode },
            stats: nodeFs.lstatSync(`${repo.dir}/d000/f0.txt`),
          },
        ],
        [],
      );
      const before = await loadIndexState(r);
      expect(before?.offsets).toBeDefined();
      expect(nodeFs.readFileSync(`${repo.dir}/.git/index`).includes('TREE')).toBe(false);
      repo.write('d001/f150.txt', 'changed\n');
      const stats = nodeFs.lstatSync(`${repo.dir}/d001/f150.txt`);
      const oid = await blobOf(repo.dir, 'changed\n');
      await git.writeBlob({ fs: nodeFs, dir: repo.dir, blob: new TextEncoder().encode('changed\n') });
      await updateIndex(r, [{ path: 'd001/f150.txt', blob: { oid, mode: 0o100644 }, stats }], []);
      const after = await loadIndexState(r);
      // Our own write is kept by its stat key: same path set, same map, no new parse.
      expect(after?.entries).toBe(before?.entries);
      expect(after?.pathsVersion).toBe(before?.pathsVersion);
      expect(after?.key).not.toBe(before?.key);
      expect(repo.git('ls-files', '-s', 'd001/f150.txt')).toContain(oid);
      expect(repo.git('status', '--porcelain')).toBe('M  d001/f150.txt'); // staged, as git add would
      expect(repo.git('fsck', '--no-progress', '--no-dangling')).toBe('');
    },
  );

  it('adding and removing entries rewrites the index in git order, which the git CLI reads as written', async () => {
    const repo = repoWith(50);
    const r = openRepo(nodeFs, repo.dir);
    repo.write('a/new.txt', 'new\n');
    repo.write('d000/f10.txt.new', 'sorts after f10.txt\n');
    const files = ['a/new.txt', 'd000/f10.txt.new'];
    const staged = [];
    for (const path of files) {
      const content = repo.read(path);
      await git.writeBlob({ fs: nodeFs, dir: repo.dir, blob: new TextEncoder().encode(content) });
      staged.push({
        path,
        blob: { oid: await blobOf(repo.dir, content), mode: 0o100644 },
        stats: nodeFs.lstatSync(`${repo.dir}/${path}`),
      });
    }
    repo.remove('d000/f3.txt');
    await updateIndex(r, staged, ['d000/f3.txt']);
    expect(repo.git('status', '--porcelain')).toBe(
      ['A  a/new.txt', 'A  d000/f10.txt.new', 'D  d000/f3.txt'].join('\n'),
    );
    const listed = repo.git('ls-files').split('\n');
    expect(listed).toEqual([...listed].sort());
    expect(repo.git('fsck', '--no-progress', '--no-dangling')).toBe('');
  });
});

describe('whole-tree scan with the index known to equal the commit', () => {
  it(
    'after a clean scan the next scan needs no blob map and still finds an ' +
      'edit, a deletion and an untracked file, in both halves of the walk ' +
      '(2,500 files: a second thread stats part of them)',
    async () => {
      const repo = repoWith(2500);
      const r = openRepo(nodeFs, repo.dir);
      const head = repo.git('rev-parse', 'HEAD');
      expect(await scanWorktree(r, head, undefined)).toEqual([]);
      expect((await loadIndexState(r))?.matches).toBe(head);
      repo.write('d000/f5.txt', 'edited early\n'); // in the walk's own share
      repo.write('d024/f2450.txt', 'edited late\n'); // in the worker's share
      repo.remove('d020/f2001.txt');
      repo.write('d010/untracked.txt', 'new\n');
      const changes = await scanWorktree(r, head, undefined);
      expect(changes.map((c) => `${c.path} ${c.head ? 'tracked' : 'new'} ${c.workdir ? 'present' : 'gone'}`)).toEqual([
        'd000/f5.txt tracked present',
        'd010/untracked.txt new present',
        'd020/f2001.txt tracked gone',
        'd024/f2450.txt tracked present',
      ]);
    },
  );

  it(
    'an index changed by the git CLI is read again and compared with the ' + 'commit: a staged change is found',
    async () => {
      const repo = repoWith(20);
      const r = openRepo(nodeFs, repo.dir);
      const head = repo.git('rev-parse', 'HEAD');
      expect(await scanWorktree(r, head, undefined)).toEqual([]);
      repo.write('d000/f1.txt', 'staged\n');
      repo.git('add', 'd000/f1.txt');
      repo.write('d000/f1.txt', 'file 1\n'); // working tree back to the commit, the index not
      const changes = await scanWorktree(r, head, undefined);
      expect(changes.map((c) => c.path)).toEqual(['d000/f1.txt']);
      expect((await loadIndexState(r))?.matches).toBeUndefined();
    },
  );

  it(
    'an in-place update whose index write fails (ENOSPC) leaves the index on disk as it was, ' +
      'and the next load reads that file, not the patched bytes',
    async () => {
      const repo = repoWith(300);
      let failing = false;
      const promises = new Proxy(nodeFs.promises, {
        get(target, prop) {
          const value = Reflect.get(target, prop) as (...a: unknown[]) => unknown;
          if (prop !== 'open') return typeof value === 'function' ? value.bind(target) : value;
          return async (path: string, flags: string, mode?: number) => {
            const handle = await nodeFs.promises.open(path, flags, mode);
            if (!failing || !path.endsWith('/index.lock')) return handle;
            return {
              writeFile: async () => {
                throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
              },
              sync: () => handle.sync(),
              close: () => handle.close(),
            };
          };
        },
      });
      const r = openRepo({ promises } as never, repo.dir);
      const entry = (await loadIndexState(r))!.entries.get('d000/f0.txt')!;
      const stats = nodeFs.lstatSync(`${repo.dir}/d000/f0.txt`);
      await updateIndex(r, [{ path: entry.path, blob: { oid: entry.oid, mode: entry.mode }, stats }], []);
      expect((await loadIndexState(r))?.offsets).toBeDefined(); // the next update patches in place
      const onDisk = nodeFs.readFileSync(`${repo.dir}/.git/index`);
      const oldOid = (await loadIndexState(r))!.entries.get('d001/f150.txt')!.oid;
      repo.write('d001/f150.txt', 'changed\n');
      const oid = await blobOf(repo.dir, 'changed\n');
      const changed = nodeFs.lstatSync(`${repo.dir}/d001/f150.txt`);
      failing = true;
      const error = await updateIndex(r, [{ path: 'd001/f150.txt', blob: { oid, mode: 0o100644 }, stats: changed }], [])
        .then(() => undefined)
        .catch((e: unknown) => e);
      failing = false;
      expect((error as { code?: string }).code).toBe('ENOSPC');
      expect(nodeFs.readFileSync(`${repo.dir}/.git/index`).equals(onDisk)).toBe(true);
      expect(nodeFs.existsSync(`${repo.dir}/.git/index.lock`)).toBe(false);
      expect((await loadIndexState(r))!.entries.get('d001/f150.txt')!.oid).toBe(oldOid);
      expect(repo.git('ls-files', '-s', 'd001/f150.txt')).toContain(oldOid);
    },
  );
});

describe('updateIndex with defer (issue 31: the staging of a discarded candidate is never written)', () => {
  const restage = (r: ReturnType<typeof openRepo>, dir: string, path: string, oid: string) =>
    updateIndex(r, [{ path, blob: { oid, mode: 0o100644 }, stats: nodeFs.lstatSync(`${dir}/${path}`) }], [], {
      defer: true,
    });

  it(
    'deferred updates stay in memory until DEFER_LIMIT entries wait, then one write holds them all; ' +
      'below deferStagingAt bytes nothing is deferred',
    async () => {
      const repo = repoWith(300);
      const r = openRepo(nodeFs, repo.dir, undefined, 0);
      const first = (await loadIndexState(r))!;
      const oid = first.entries.get('d000/f0.txt')!.oid;
      const fileKey = first.fileKey;
      for (let i = 0; i < DEFER_LIMIT; i += 1) await restage(r, repo.dir, 'd000/f0.txt', oid);
      const waiting = await loadIndexState(r);
      expect(waiting!.fileKey).toBe(fileKey);
      expect(waiting!.unwritten).toBe(DEFER_LIMIT);
      await restage(r, repo.dir, 'd000/f0.txt', oid);
      const written = await loadIndexState(r);
      expect(written!.fileKey).not.toBe(fileKey);
      expect(written!.unwritten).toBe(0);
      expect(repo.git('status', '--porcelain')).toBe('');

      const small = openRepo(nodeFs, repo.dir, undefined, 1_000_000); // a 300-entry index is ~25 kB
      const before = (await loadIndexState(small))!.fileKey;
      await restage(small, repo.dir, 'd000/f0.txt', oid);
      expect((await loadIndexState(small))!.fileKey).not.toBe(before);
    },
  );

  it('a staged blob the file does not hold is written by flushIndex, and the git CLI then reads it', async () => {
    const repo = repoWith(300);
    const r = openRepo(nodeFs, repo.dir, undefined, 0);
    const oid = (await loadIndexState(r))!.entries.get('d000/f0.txt')!.oid;
    await restage(r, repo.dir, 'd000/f0.txt', oid);
    repo.write('d001/f150.txt', 'changed\n');
    const changed = await git.writeBlob({ fs: nodeFs, dir: repo.dir, blob: new TextEncoder().encode('changed\n') });
    await restage(r, repo.dir, 'd001/f150.txt', changed);
    expect(repo.git('ls-files', '-s', 'd001/f150.txt')).not.toContain(changed); // still in memory
    await flushIndex(r, true);
    expect(repo.git('ls-files', '-s', 'd001/f150.txt')).toContain(changed);
    expect(repo.git('status', '--porcelain')).toBe('M  d001/f150.txt');
  });
});

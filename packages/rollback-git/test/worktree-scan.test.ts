import { utimesSync } from 'node:fs';
import nodeFs from 'node:fs';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { afterEach, describe, expect, it } from 'vitest';
import { readIndexFile } from '../src/internal/index-file.js';
import { openRepo } from '../src/internal/repo.js';
import { scanWorktree } from '../src/internal/worktree-scan.js';
import { makeRepo, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

function dirtyRepo(): TempRepo {
  const files: Record<string, string> = { '.gitignore': '*.log\nbuild/\n' };
  for (let i = 0; i < 60; i += 1) files[`pkg${i % 6}/sub${i % 3}/file${i}.txt`] = `content ${i}\n`;
  const repo = makeRepo(files);
  repos.push(repo);
  repo.write('pkg0/sub0/file0.txt', 'modified\n');
  repo.remove('pkg1/sub1/file1.txt');
  repo.write('pkg2/new.txt', 'untracked\n');
  repo.write('fresh/dir/a.txt', 'untracked dir\n');
  repo.write('pkg3/debug.log', 'ignored\n');
  repo.write('build/out.bin', 'ignored dir\n');
  repo.write('pkg4/sub1/file4.txt', 'staged\n');
  repo.git('add', 'pkg4/sub1/file4.txt');
  repo.write('pkg4/sub1/file4.txt', 'content 4\n'); // staged change, working tree back to HEAD
  return repo;
}

describe('scanWorktree', () => {
  it('the whole-tree scan finds what statusMatrix finds', async () => {
    const repo = dirtyRepo();
    const r = openRepo(nodeFs, repo.dir);
    const head = repo.git('rev-parse', 'HEAD');
    const matrix = await git.statusMatrix({ fs: nodeFs, dir: repo.dir });
    const expected = matrix
      .filter(([, h, w, s]) => !(h === 1 && w === 1 && s === 1))
      .map(([path]) => path)
      .sort();
    const changes = await scanWorktree(r, head, undefined);
    expect(changes.map((c) => c.path)).toEqual(expected);
    expect(expected).toEqual([
      'fresh/dir/a.txt',
      'pkg0/sub0/file0.txt',
      'pkg1/sub1/file1.txt',
      'pkg2/new.txt',
      'pkg4/sub1/file4.txt',
    ]);
    const staged = changes.find((c) => c.path === 'pkg4/sub1/file4.txt');
    expect(staged?.workdir?.oid).toBe(staged?.head?.oid);
    expect(changes.find((c) => c.path === 'pkg1/sub1/file1.txt')).toMatchObject({ workdir: undefined, indexed: true });
  });

  it('a path scan only looks inside its paths', async () => {
    const repo = dirtyRepo();
    const r = openRepo(nodeFs, repo.dir);
    const changes = await scanWorktree(r, repo.git('rev-parse', 'HEAD'), ['pkg0', 'pkg2/new.txt', 'pkg3']);
    expect(changes.map((c) => c.path)).toEqual(['pkg0/sub0/file0.txt', 'pkg2/new.txt']);
  });

  it('a touched but unchanged file is not a change, and its index stats are refreshed', async () => {
    const files: Record<string, string> = { 'a.txt': 'a\n', 'b.txt': 'b\n' };
    const repo = makeRepo(files);
    repos.push(repo);
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(repo.dir, 'a.txt'), later, later);
    const r = openRepo(nodeFs, repo.dir);
    expect(await scanWorktree(r, repo.git('rev-parse', 'HEAD'), undefined)).toEqual([]);
    const entry = (await readIndexFile(r))?.entries.get('a.txt');
    expect(Math.abs((entry?.mtimeMs ?? 0) - later.getTime())).toBeLessThan(1);
  });

  it('readIndexFile reads what the git CLI wrote', async () => {
    const repo = makeRepo({ 'x/y.txt': 'y\n', 'run.sh': 'echo\n' });
    repos.push(repo);
    const index = await readIndexFile(openRepo(nodeFs, repo.dir));
    const cli = repo
      .git('ls-files', '-s')
      .split('\n')
      .map((line) => line.split(/\s+/));
    expect([...(index?.entries.values() ?? [])].map((e) => [e.mode.toString(8), e.oid, '0', e.path])).toEqual(
      cli.map(([mode, oid, stage, path]) => [mode, oid, stage, path]),
    );
  });
});

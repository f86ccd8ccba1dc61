import nodeFs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, type TempRepo } from '../../test/helpers.js';
import { openRepo } from './repo.js';
import { scanWorktree } from './worktree-scan.js';
import { ignoreCacheOf, isIgnored } from './worktree-walk.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

/** A clock a minute ahead of the file system's: every rule file looks old enough to trust. */
const later = () => Date.now() + 60_000;

describe('ignore answers kept while the rule files are unchanged (issue 13)', () => {
  it(
    'a second ask about the same path reuses the answer; an edit to ' +
      '.gitignore (even with its mtime put back) or to info/exclude is seen',
    async () => {
      const repo = makeRepo({ '.gitignore': 'out.log\n', 'sub/a.txt': 'a\n' });
      repos.push(repo);
      const r = openRepo(nodeFs, repo.dir);
      const cache = ignoreCacheOf(r, later);
      expect(await isIgnored(r, 'out.log')).toBe(true);
      expect(await isIgnored(r, 'out.log')).toBe(true);
      expect(cache.counts).toEqual({ computed: 1, reused: 1 });
      const before = nodeFs.lstatSync(`${repo.dir}/.gitignore`);
      repo.write('.gitignore', 'o.log\n'); // other rules, one byte shorter
      nodeFs.utimesSync(`${repo.dir}/.gitignore`, before.atime, before.mtime);
      expect(await isIgnored(r, 'out.log')).toBe(false);
      nodeFs.mkdirSync(`${repo.dir}/.git/info`, { recursive: true });
      nodeFs.writeFileSync(`${repo.dir}/.git/info/exclude`, 'out.log\n');
      expect(await isIgnored(r, 'out.log')).toBe(true);
      expect(cache.counts.computed).toBe(3);
    },
  );

  it(
    'a .gitignore added in a sub-folder changes the answers below it; a scan ' +
      'then reports the newly unignored file',
    async () => {
      const repo = makeRepo({ '.gitignore': '*.tmp\n', 'sub/a.txt': 'a\n' });
      repos.push(repo);
      const r = openRepo(nodeFs, repo.dir);
      ignoreCacheOf(r, later);
      const head = repo.git('rev-parse', 'HEAD');
      repo.write('sub/x.tmp', 'x\n');
      expect(await scanWorktree(r, head, undefined)).toEqual([]);
      repo.write('sub/.gitignore', '!x.tmp\n');
      expect((await scanWorktree(r, head, undefined)).map((c) => c.path)).toEqual(['sub/.gitignore', 'sub/x.tmp']);
    },
  );

  it('a rule file changed within 50 ms of the check keeps no answer (racy)', async () => {
    const repo = makeRepo({ '.gitignore': 'out.log\n' });
    repos.push(repo);
    const r = openRepo(nodeFs, repo.dir);
    const mtime = nodeFs.lstatSync(`${repo.dir}/.gitignore`).mtimeMs;
    const cache = ignoreCacheOf(r, () => mtime + 10);
    await isIgnored(r, 'out.log');
    await isIgnored(r, 'out.log');
    expect(cache.counts).toEqual({ computed: 2, reused: 0 });
  });
});

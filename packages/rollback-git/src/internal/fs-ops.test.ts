import nodeFs, { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, type TempRepo } from '../../test/helpers.js';
import { MODE_EXECUTABLE, MODE_FILE, writeWorktreeBlob } from './fs-ops.js';
import { openRepo } from './repo.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});
const bytes = (text: string) => new TextEncoder().encode(text);

describe('writeWorktreeBlob on node:fs', () => {
  it(
    'an existing file of the same mode is rewritten in place (same inode) ' +
      'and cut to the new length: shorter, longer and empty contents come out ' +
      'byte for byte',
    async () => {
      const repo = makeRepo({ 'a.txt': 'a fairly long first version\n', 'b.txt': 'b\n' }, 'loop-fs-ops-');
      repos.push(repo);
      const r = openRepo(nodeFs, repo.dir);
      const inode = statSync(join(repo.dir, 'a.txt')).ino;
      await writeWorktreeBlob(r, 'a.txt', MODE_FILE, bytes('short\n'));
      expect(repo.read('a.txt')).toBe('short\n');
      await writeWorktreeBlob(r, 'a.txt', MODE_FILE, bytes('x'.repeat(5000)));
      expect(repo.read('a.txt')).toBe('x'.repeat(5000));
      await writeWorktreeBlob(r, 'a.txt', MODE_FILE, bytes(''));
      expect(repo.read('a.txt')).toBe('');
      expect(statSync(join(repo.dir, 'a.txt')).ino).toBe(inode);
    },
  );

  it('a mode change still replaces the file with the new mode (executable bit set, then cleared)', async () => {
    const repo = makeRepo({ 'run.sh': 'echo 1\n' }, 'loop-fs-ops-');
    repos.push(repo);
    const r = openRepo(nodeFs, repo.dir);
    await writeWorktreeBlob(r, 'run.sh', MODE_EXECUTABLE, bytes('echo 2\n'));
    expect(statSync(join(repo.dir, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(repo.read('run.sh')).toBe('echo 2\n');
    await writeWorktreeBlob(r, 'run.sh', MODE_FILE, bytes('echo 3\n'));
    expect(statSync(join(repo.dir, 'run.sh')).mode & 0o111).toBe(0);
    expect(repo.read('run.sh')).toBe('echo 3\n');
    chmodSync(join(repo.dir, 'run.sh'), 0o644);
  });
});

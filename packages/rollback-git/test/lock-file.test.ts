// Every write rollback-git makes under .git follows git's lock-file convention (issue 12, fault 1):
// `<file>.lock` created exclusively, written, renamed into place; a lock the git CLI holds is
// waited for, then refused with LOCK_HELD; the index and refs are never rewritten in place.
import nodeFs from 'node:fs';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isLoopError } from '@loop/core';
import { createGitResetRollback } from '../src/index.js';
import type { GitFs } from '../src/git-fs.js';
import { lockPathOf, writeThroughLock } from '../src/internal/lock-file.js';
import { makeRepo, steppingClock, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

/** node:fs recording every writeFile/rename/open-for-write under .git, in order. */
function recordingFs(log: string[], gitdir: string): GitFs {
  const rel = (p: string) => (p.startsWith(gitdir) ? p.slice(gitdir.length + 1) : undefined);
  const promises = new Proxy(nodeFs.promises, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as (...a: unknown[]) => unknown;
      if (prop === 'writeFile' || prop === 'rename' || prop === 'open') {
        return (...args: unknown[]) => {
          const r = rel(String(args[0]));
          const flags = prop === 'open' ? String(args[1]) : '';
          if (r !== undefined && (prop !== 'open' || flags.includes('w')))
            log.push(
              `${String(prop)} ${r}${prop === 'rename' ? ` -> ${rel(String(args[1]))}` : ''}` +
                `${flags ? ` ${flags}` : ''}`,
            );
          return value.apply(target, args);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { promises } as unknown as GitFs;
}

describe('rollback-git writes under .git through lock files', () => {
  it(
    'the index and the run branch ref are only ever replaced by renaming ' +
      'their .lock (created with wx), never written in place',
    async () => {
      const repo = makeRepo({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
      repos.push(repo);
      const log: string[] = [];
      const gitdir = join(repo.dir, '.git');
      const rollback = createGitResetRollback({
        dir: repo.dir,
        branch: 'run/locks',
        fs: recordingFs(log, gitdir),
        clock: steppingClock(),
      });
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      repo.write('a.txt', 'changed\n');
      repo.write('src/new.txt', 'new\n');
      const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'one' });
      await rollback.revert(cp, { iteration: 1, candidateId: id });
      const inPlace = log.filter((l) => l.startsWith('writeFile ') && !l.startsWith('writeFile objects/'));
      expect(inPlace).toEqual([]);
      expect(log).toContain('open index.lock wx');
      expect(log).toContain('rename index.lock -> index');
      expect(log).toContain('open refs/heads/run/locks.lock wx');
      expect(log).toContain('rename refs/heads/run/locks.lock -> refs/heads/run/locks');
      // Objects are written to a temp file and renamed: never a torn object that "exists".
      expect(
        log
          .filter((l) => l.startsWith('writeFile objects/'))
          .every((l) => /objects\/([0-9a-f]{2}|pack)\/tmp_obj_/.test(l)),
      ).toBe(true);
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(repo.git('fsck', '--no-progress')).toBe('');
    },
  );

  it(
    'the index is written once per commit and once per revert (issue 13), ' + 'and the git CLI reads it as clean',
    async () => {
      const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'src/c.txt': 'c\n', 'src/d.txt': 'd\n' });
      repos.push(repo);
      const log: string[] = [];
      const rollback = createGitResetRollback({
        dir: repo.dir,
        branch: 'run/once',
        fs: recordingFs(log, join(repo.dir, '.git')),
        clock: steppingClock(),
      });
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      const indexWrites = () => log.filter((l) => l === 'rename index.lock -> index').length;
      const before = indexWrites();
      repo.write('a.txt', 'changed\n');
      repo.remove('b.txt');
      repo.remove('src');
      repo.write('src', 'a file where a directory was\n');
      repo.write('new/e.txt', 'e\n');
      const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'many changes' });
      expect(indexWrites() - before).toBe(1);
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(repo.git('ls-files', '-s')).toBe(
        repo.git('ls-tree', '-r', '--format=%(objectmode) %(objectname) 0\t%(path)', 'HEAD'),
      );
      const mid = indexWrites();
      await rollback.revert(cp, { iteration: 1, candidateId: id });
      expect(indexWrites() - mid).toBe(1);
      expect(rollback.lastRestore()?.fallback).toBe(false);
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(repo.git('ls-files')).toBe(['a.txt', 'b.txt', 'src/c.txt', 'src/d.txt'].join('\n'));
    },
  );

  it(
    'a held index.lock (the git CLI writing) is waited for, then refused ' +
      'with LOCK_HELD, and the index is untouched',
    async () => {
      const repo = makeRepo({ 'a.txt': 'a\n' });
      repos.push(repo);
      const index = join(repo.dir, '.git', 'index');
      writeFileSync(lockPathOf(index), 'held by another process');
      const before = nodeFs.readFileSync(index);
      const slept: number[] = [];
      const error = await writeThroughLock(nodeFs.promises as never, index, new Uint8Array([1, 2, 3]), {
        wait: { timeoutMs: 50, sleep: async (ms) => void slept.push(ms) },
      }).catch((e: unknown) => e);
      expect(isLoopError(error, 'LOCK_HELD')).toBe(true);
      expect(String((error as Error).message)).toContain('index.lock exists');
      expect(slept.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(50);
      expect(nodeFs.readFileSync(index).equals(before)).toBe(true);
      expect(nodeFs.readFileSync(lockPathOf(index), 'utf8')).toBe('held by another process');
    },
  );

  it('a write that fails (ENOSPC) removes its lock and leaves the old file intact', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    repos.push(repo);
    const ref = join(repo.dir, '.git', 'refs', 'heads', 'main');
    const before = nodeFs.readFileSync(ref, 'utf8');
    const failing = {
      ...nodeFs.promises,
      open: async (path: string, flags: string, mode?: number) => {
        const handle = await nodeFs.promises.open(path, flags, mode);
        return {
          writeFile: async () => {
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          },
          sync: () => handle.sync(),
          close: () => handle.close(),
        };
      },
    };
    const error = await writeThroughLock(failing as never, ref, new TextEncoder().encode('0'.repeat(40))).catch(
      (e: unknown) => e,
    );
    expect((error as { code?: string }).code).toBe('ENOSPC');
    expect(nodeFs.readFileSync(ref, 'utf8')).toBe(before);
    expect(nodeFs.existsSync(lockPathOf(ref))).toBe(false);
  });

  it(
    'a small write on node:fs itself is the same sequence in synchronous calls ' +
      '(lock created exclusively, written, fsynced, renamed, directory fsynced)',
    async () => {
      const repo = makeRepo({ 'a.txt': 'a\n' });
      repos.push(repo);
      const ref = join(repo.dir, '.git', 'refs', 'heads', 'main');
      const calls: string[] = [];
      const real = { openSync: nodeFs.openSync, fsyncSync: nodeFs.fsyncSync, renameSync: nodeFs.renameSync };
      const spied = (Object.keys(real) as (keyof typeof real)[]).map((name) =>
        vi.spyOn(nodeFs, name).mockImplementation(((...args: unknown[]) => {
          const where = typeof args[0] === 'string' ? args[0].slice(repo.dir.length + 1) : 'fd';
          calls.push(`${name} ${where}${name === 'openSync' ? ` ${String(args[1])}` : ''}`);
          return (real[name] as (...a: unknown[]) => unknown)(...args);
        }) as never),
      );
      try {
        await writeThroughLock(nodeFs.promises as never, ref, new TextEncoder().encode(`${'1'.repeat(40)}\n`));
      } finally {
        for (const s of spied) s.mockRestore();
      }
      expect(calls).toEqual([
        'openSync .git/refs/heads/main.lock wx',
        'fsyncSync fd',
        'renameSync .git/refs/heads/main.lock',
        'openSync .git/refs/heads r',
        'fsyncSync fd',
      ]);
      expect(nodeFs.readFileSync(ref, 'utf8')).toBe(`${'1'.repeat(40)}\n`);
      expect(nodeFs.existsSync(lockPathOf(ref))).toBe(false);
    },
  );

  it('a synchronous write whose rename fails removes its lock and leaves the target as it was', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    repos.push(repo);
    // A non-empty directory where the file should go: the rename fails (EISDIR).
    const target = join(repo.dir, '.git', 'refs', 'heads', 'occupied');
    nodeFs.mkdirSync(join(target, 'inside'), { recursive: true });
    const error = await writeThroughLock(nodeFs.promises as never, target, new Uint8Array([49])).catch(
      (e: unknown) => e,
    );
    expect(['EISDIR', 'ENOTEMPTY', 'EEXIST']).toContain((error as { code?: string }).code);
    expect(nodeFs.existsSync(lockPathOf(target))).toBe(false);
    expect(nodeFs.readdirSync(target)).toEqual(['inside']);
  });
});

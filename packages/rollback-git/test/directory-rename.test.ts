// Reverting a directory rename stays on the fast path (issue 12, fault 6: parallel writes raced to
// create the same parent, `EEXIST: mkdir`, and the revert fell back to a full checkout).
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback } from '../src/index.js';
import { makeRepo, testOptions, steppingClock, type FileSpec, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

describe('a directory rename reverts on the fast path', () => {
  it.each([
    ['a flat directory of 40 files', (i: number) => `lib/f${i}.txt`],
    [
      'a directory with nested folders (shared parents at several depths)',
      (i: number) => `lib/d${i % 3}/e${i % 2}/f${i}.txt`,
    ],
  ])('%s renamed by the candidate is restored without the full-checkout fallback', async (_label, pathOf) => {
    const files: Record<string, FileSpec> = { 'keep.txt': 'k\n' };
    for (let i = 0; i < 40; i += 1) files[pathOf(i)] = `file ${i}\n`;
    const repo = makeRepo(files);
    repos.push(repo);
    const rollback = createGitResetRollback({
      ...testOptions(),
      dir: repo.dir,
      branch: 'run/rename',
      clock: steppingClock(),
    });
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    renameSync(join(repo.dir, 'lib'), join(repo.dir, 'lib2'));
    const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'rename lib' });
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(rollback.lastRestore()).toMatchObject({ operation: 'revert', fallback: false });
    expect(repo.exists('lib2')).toBe(false);
    for (let i = 0; i < 40; i += 1) expect(repo.read(pathOf(i))).toBe(`file ${i}\n`);
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('a file replaced by a directory of the same name (and back) reverts on the fast path', async () => {
    const repo = makeRepo({ 'x/a.txt': 'a\n', 'x/b.txt': 'b\n', y: 'plain file\n' });
    repos.push(repo);
    const rollback = createGitResetRollback({
      ...testOptions(),
      dir: repo.dir,
      branch: 'run/rename',
      clock: steppingClock(),
    });
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.remove('x');
    repo.write('x', 'now a file\n');
    repo.remove('y');
    repo.write('y/inner.txt', 'now a directory\n');
    const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'swap kinds' });
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(rollback.lastRestore()?.fallback).toBe(false);
    expect(repo.read('x/a.txt')).toBe('a\n');
    expect(repo.read('y')).toBe('plain file\n');
    expect(repo.git('status', '--porcelain')).toBe('');
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLoopError } from '@loop/core';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, type TempRepo } from '../test/helpers.js';
import {
  addDetachedWorktree,
  fetchCommit,
  hasCommit,
  initBareRepository,
  removeDetachedWorktree,
} from './remote-ops.js';
import { removeWorktree } from './git-worktree.js';

const repos: TempRepo[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const source = makeRepo({ 'train.py': 'lr = 1\n' });
  repos.push(source);
  const root = mkdtempSync(join(tmpdir(), 'loop-remote-ops-'));
  dirs.push(root);
  return { source, root, clone: join(root, 'clone.git') };
}

describe('remote ops', () => {
  it('a bare clone fetches a branch tip commit once, then finds it without fetching', async () => {
    const { source, root, clone } = setup();
    source.write('train.py', 'lr = 2\n');
    source.git('commit', '-qam', 'two');
    const head = source.git('rev-parse', 'HEAD');
    expect(await initBareRepository(clone)).toBe(true);
    expect(await initBareRepository(clone)).toBe(false);
    expect(await hasCommit({ cwd: clone }, head)).toBe(false);
    expect(await fetchCommit({ cwd: clone }, source.dir, head)).toBe(true);
    expect(await fetchCommit({ cwd: clone }, source.dir, head)).toBe(false);
    const wt = join(root, 'wt');
    await addDetachedWorktree({ cwd: clone }, wt, head);
    expect(readFileSync(join(wt, 'train.py'), 'utf8')).toBe('lr = 2\n');
    await removeWorktree({ cwd: clone }, wt, { force: true });
    expect(existsSync(wt)).toBe(false);
    await addDetachedWorktree({ cwd: clone }, wt, head); // the same path again: its record is gone
    await removeDetachedWorktree(wt);
    await removeDetachedWorktree(wt);
    expect(existsSync(wt)).toBe(false);
    expect(readdirSync(join(clone, 'worktrees'))).toEqual([]); // its record is gone: git lists only the main one
    expect(execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: clone, encoding: 'utf8' })).not.toContain(
      wt,
    );
    await addDetachedWorktree({ cwd: clone }, wt, head); // and the path can be used again
  });

  it('a commit only reachable from refs/loop/discarded is fetched too', async () => {
    const { source, clone } = setup();
    source.write('train.py', 'lr = 3\n');
    source.git('commit', '-qam', 'discarded');
    const discarded = source.git('rev-parse', 'HEAD');
    source.git('update-ref', 'refs/loop/discarded/1', discarded);
    source.git('reset', '-q', '--hard', 'HEAD~1');
    await initBareRepository(clone);
    await fetchCommit({ cwd: clone }, source.dir, discarded);
    expect(await hasCommit({ cwd: clone }, discarded)).toBe(true);
  });

  it('a commit the remote does not have is NOT_A_REPOSITORY naming the commit', async () => {
    const { source, clone } = setup();
    await initBareRepository(clone);
    const missing = 'f'.repeat(40);
    const error = await fetchCommit({ cwd: clone }, source.dir, missing).catch((e: unknown) => e);
    expect(isLoopError(error, 'NOT_A_REPOSITORY')).toBe(true);
    expect((error as Error).message).toContain(missing);
  });
});

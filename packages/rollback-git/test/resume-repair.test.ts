// Resume repairs what a kill can still leave in .git (issue 12, fault 1: "after that loop resume
// fails every time"): a torn index, a torn or missing run-branch ref, stale lock files, an orphan
// candidate; and reports it as one line.
import {
  closeSync,
  copyFileSync,
  openSync,
  readdirSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isLoopError } from '@loop/core';
import { createGitResetRollback, describeRepairs, type GitResetRollback } from '../src/index.js';
import { makeRepo, steppingClock, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

const BRANCH = 'run/repair';
const open = (repo: TempRepo, resume: boolean): GitResetRollback =>
  createGitResetRollback({ dir: repo.dir, branch: BRANCH, resume, clock: steppingClock() });

/** A run with one kept candidate; returns the repo and the kept commit. */
async function runWithOneKeep(): Promise<{ repo: TempRepo; kept: string }> {
  const repo = makeRepo({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
  repos.push(repo);
  const rollback = open(repo, false);
  await rollback.start();
  const cp = await rollback.checkpoint(1);
  repo.write('a.txt', 'kept\n');
  const kept = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'kept one' });
  await rollback.keep(cp, kept);
  return { repo, kept };
}

function expectCleanAt(repo: TempRepo, kept: string): void {
  expect(repo.git('symbolic-ref', 'HEAD')).toBe(`refs/heads/${BRANCH}`);
  expect(repo.git('rev-parse', 'HEAD')).toBe(kept);
  expect(repo.git('status', '--porcelain')).toBe('');
  expect(repo.git('diff', '--cached', '--name-only')).toBe('');
  expect(repo.git('fsck', '--no-progress', '--no-dangling')).toBe('');
}

describe('resume repairs what a kill left in .git', () => {
  it('an empty (0-byte) index is rebuilt from the kept commit at start, and the repair is one line', async () => {
    const { repo, kept } = await runWithOneKeep();
    truncateSync(join(repo.dir, '.git', 'index'), 0);
    const rollback = open(repo, true);
    const report = await rollback.start();
    expect(report.repairs).toEqual([`index (torn) rebuilt from ${kept.slice(0, 7)}`]);
    await rollback.recover(kept.slice(0, 7));
    expectCleanAt(repo, kept);
    expect(describeRepairs(rollback.repairs())).toBe(`resume repaired: index (torn) rebuilt from ${kept.slice(0, 7)}`);
  });

  it(
    'a missing index is rebuilt from the run branch at start, and recover ' +
      'rescues a file that differs from the last keep (issue 32)',
    async () => {
      const { repo, kept } = await runWithOneKeep();
      unlinkSync(join(repo.dir, '.git', 'index'));
      repo.write('a.txt', 'saved after the kill\n');
      const rollback = open(repo, true);
      const report = await rollback.start();
      expect(report.repairs).toEqual([`index (missing) rebuilt from ${kept.slice(0, 7)}`]);
      await rollback.recover(kept.slice(0, 7));
      expectCleanAt(repo, kept);
      expect(repo.read('a.txt')).toBe('kept\n');
      expect(repo.git('show', 'refs/loop/discarded/recovered:a.txt')).toBe('saved after the kill');
    },
  );

  it(
    'a torn run-branch ref and a torn index are restored from the last keep ' +
      'by recover; before recover the rollback refuses to work ' +
      '(RESUME_MISMATCH)',
    async () => {
      const { repo, kept } = await runWithOneKeep();
      writeFileSync(join(repo.dir, '.git', 'refs', 'heads', 'run', 'repair'), '');
      writeFileSync(join(repo.dir, '.git', 'index'), 'DIRC\0\0\0\x02 torn');
      const rollback = open(repo, true);
      const report = await rollback.start();
      expect(report.headId).toBe('');
      expect(report.repairs).toEqual([`run branch ref refs/heads/${BRANCH} (empty) removed`]);
      const refused = await rollback.checkpoint(2).catch((e: unknown) => e);
      expect(isLoopError(refused, 'RESUME_MISMATCH')).toBe(true);
      await rollback.recover(kept.slice(0, 7));
      expectCleanAt(repo, kept);
      expect(rollback.repairs()).toEqual([
        `run branch ref refs/heads/${BRANCH} (empty) removed`,
        `run branch ${BRANCH} restored to ${kept.slice(0, 7)} from the last keep`,
        `index (torn) rebuilt from ${kept.slice(0, 7)}`,
      ]);
    },
  );

  it(
    'a torn run-branch ref while HEAD was moved to another branch by hand: ' +
      'recover restores the ref and checks the run branch out again',
    async () => {
      const { repo, kept } = await runWithOneKeep();
      repo.git('checkout', '-q', 'main');
      writeFileSync(join(repo.dir, '.git', 'refs', 'heads', 'run', 'repair'), 'torn');
      const rollback = open(repo, true);
      expect((await rollback.start()).repairs).toEqual([`run branch ref refs/heads/${BRANCH} (torn) removed`]);
      await rollback.recover(kept);
      expectCleanAt(repo, kept);
    },
  );

  it('a missing run-branch ref (HEAD still on it) is restored from the last keep', async () => {
    const { repo, kept } = await runWithOneKeep();
    repo.remove('.git/refs/heads/run/repair');
    const rollback = open(repo, true);
    expect((await rollback.start()).repairs).toEqual([`run branch ref refs/heads/${BRANCH} missing`]);
    await rollback.recover(kept);
    expectCleanAt(repo, kept);
  });

  it('lock files no live process holds are removed; one this live process holds open is kept', async () => {
    const { repo, kept } = await runWithOneKeep();
    const gitdir = join(repo.dir, '.git');
    writeFileSync(join(gitdir, 'index.lock'), 'left by a killed loop');
    writeFileSync(join(gitdir, 'refs', 'heads', 'run', 'repair.lock'), 'left by a killed loop');
    writeFileSync(join(gitdir, 'packed-refs.lock'), 'held');
    const held = openSync(join(gitdir, 'packed-refs.lock'), 'r');
    try {
      const rollback = open(repo, true);
      expect((await rollback.start()).repairs).toEqual([
        'stale .git/index.lock removed',
        `stale .git/refs/heads/${BRANCH}.lock removed`,
      ]);
      await rollback.recover(kept);
      expect(repo.exists('.git/index.lock')).toBe(false);
      expect(repo.exists('.git/packed-refs.lock')).toBe(true);
    } finally {
      closeSync(held);
    }
  });

  it(
    'a pack without its index (a kill between the pack and index renames) is ' +
      'removed once older than a minute; a younger one is left for a git that ' +
      'may be mid-write',
    async () => {
      const { repo, kept } = await runWithOneKeep();
      const packDir = join(repo.dir, '.git', 'objects', 'pack');
      const pack = readdirSync(packDir).find((name) => name.endsWith('.pack'))!;
      const old = `pack-${'1'.repeat(40)}.pack`;
      const young = `pack-${'2'.repeat(40)}.pack`;
      copyFileSync(join(packDir, pack), join(packDir, old));
      copyFileSync(join(packDir, pack), join(packDir, young));
      // The resumed rollback's clock reads 2025-12-01 03:00 at start: `old` is a day old, `young` 10 s.
      const startMs = Date.UTC(2025, 11, 1, 3, 0, 0);
      utimesSync(join(packDir, old), new Date(startMs - 86_400_000), new Date(startMs - 86_400_000));
      utimesSync(join(packDir, young), new Date(startMs - 10_000), new Date(startMs - 10_000));
      let calls = 0;
      const rollback = createGitResetRollback({
        dir: repo.dir,
        branch: BRANCH,
        resume: true,
        clock: { now: () => startMs + 1_000 * calls++ },
      });
      expect((await rollback.start()).repairs).toEqual([`pack without its index .git/objects/pack/${old} removed`]);
      await rollback.recover(kept);
      expect(repo.exists(`.git/objects/pack/${old}`)).toBe(false);
      expect(repo.exists(`.git/objects/pack/${young}`)).toBe(true);
      expect(repo.exists(`.git/objects/pack/${pack}`)).toBe(true);
      expectCleanAt(repo, kept);
    },
  );

  it(
    'an orphan candidate (committed, not recorded as kept) is saved under ' +
      'refs/loop/discarded/recovered and reported',
    async () => {
      const { repo, kept } = await runWithOneKeep();
      const first = open(repo, true);
      const cp = await first.checkpoint(2);
      repo.write('src/b.txt', 'orphan\n');
      const orphan = await first.commit(cp, { iteration: 2, attempt: 0, description: 'killed before its row' });
      const rollback = open(repo, true);
      expect((await rollback.start()).repairs).toEqual([]);
      await rollback.recover(kept.slice(0, 7));
      expectCleanAt(repo, kept);
      expect(repo.git('rev-parse', 'refs/loop/discarded/recovered')).toBe(orphan);
      expect(rollback.repairs()).toEqual([
        `orphan candidate ${orphan.slice(0, 7)} (committed, not recorded as ` +
          `kept) saved as refs/loop/discarded/recovered`,
        `1 path (src/b.txt) reset to ${kept.slice(0, 7)}`,
      ]);
    },
  );

  it(
    'a working-tree change in no commit (a config edited before resume) is ' +
      'saved and the repair line names the file and how to get it back',
    async () => {
      const { repo, kept } = await runWithOneKeep();
      repo.write('src/b.txt', 'edited by hand before resume\n');
      const rollback = open(repo, true);
      await rollback.start();
      await rollback.recover(kept);
      expectCleanAt(repo, kept);
      const line = rollback.repairs().find((r) => r.includes('in no commit'));
      expect(line).toBe(
        '1 working-tree file in no commit (src/b.txt) saved as ' +
          'refs/loop/discarded/recovered (`git checkout ' +
          'refs/loop/discarded/recovered -- <path>` brings one back)',
      );
      expect(repo.git('show', 'refs/loop/discarded/recovered:src/b.txt')).toBe('edited by hand before resume');
    },
  );

  it('an intact repository is not repaired: no line to print', async () => {
    const { repo, kept } = await runWithOneKeep();
    const rollback = open(repo, true);
    await rollback.start();
    await rollback.recover(kept);
    expect(rollback.repairs()).toEqual([]);
    expect(describeRepairs(rollback.repairs())).toBeUndefined();
  });
});

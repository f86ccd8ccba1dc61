import { spawnSync } from 'node:child_process';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBarrier } from '@loop/internal-test-utils';
import {
  createFileArtifact,
  createFunctionHarness,
  createLoop,
  createMemoryResultsLog,
  createValueScorer,
  maxIterations,
  type RollbackStrategy,
} from '../src/index.js';
import { createDirectoryWorkingCopies } from '../src/artifacts.js';
import { copyOwner } from '../src/artifacts/stale-copies.js';

/** A rollback for a file workspace that only needs to undo adoptions: it stores train.txt per kept id. */
function fileRollback(root: string): RollbackStrategy {
  const versions = new Map<string, string>();
  let kept = 'v0';
  let next = 1;
  const read = () => readFile(join(root, 'train.txt'), 'utf8');
  return {
    name: 'test-file',
    checkpoint: async (iteration) => {
      if (!versions.has(kept)) versions.set(kept, await read());
      return { iteration, id: kept };
    },
    commit: async () => {
      const id = `v${next++}`;
      versions.set(id, await read());
      return id;
    },
    keep: (_cp, id) => (kept = id ?? kept),
    revert: (cp) => writeFile(join(root, 'train.txt'), versions.get(cp.id)!),
    currentId: () => kept,
  };
}

describe('createDirectoryWorkingCopies', () => {
  let base: string;
  let root: string;
  let temp: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'loop-copies-'));
    root = join(base, 'workspace');
    temp = join(base, 'copies');
    await mkdir(join(root, '.git'), { recursive: true });
    await mkdir(join(root, 'data'));
    await writeFile(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(join(root, 'data', 'big.bin'), 'data');
    await writeFile(join(root, 'train.txt'), '10');
    await writeFile(join(root, 'eval.txt'), 'fixed');
    await symlink('eval.txt', join(root, 'eval-link'));
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it(
    "each candidate ran in its own copy: the copies' files differ and the " +
      'main workspace is untouched until adoption (K = 3)',
    async () => {
      const barrier = createBarrier(3);
      const seen: { dir: string; copy: string; main: string }[] = [];
      const workingCopies = createDirectoryWorkingCopies({
        root,
        mutable: ['train.txt'],
        readOnly: ['eval.txt'],
        tempDir: temp,
        harness: (dir) =>
          createFunctionHarness('file', async () => {
            await barrier.arrive(); // all three candidates are edited and evaluated before any adoption
            const copy = await readFile(join(dir, 'train.txt'), 'utf8');
            seen.push({ dir, copy, main: await readFile(join(root, 'train.txt'), 'utf8') });
            return Number(copy);
          }),
      });
      const results = createMemoryResultsLog();
      const loop = createLoop({
        artifact: createFileArtifact({ root, mutable: ['train.txt'], readOnly: ['eval.txt'] }),
        rollback: fileRollback(root),
        results,
        proposer: {
          name: 'write',
          propose: async (c) => {
            await writeFile(join(c.workingCopy!.dir!, 'train.txt'), String([8, 6, 9][c.workingCopy!.k]));
            return { description: `slot ${c.workingCopy!.k}` };
          },
        },
        harness: createFunctionHarness('main', async () => Number(await readFile(join(root, 'train.txt'), 'utf8'))),
        scorer: createValueScorer('minimize'),
        stop: maxIterations(3),
        parallel: { candidates: 3, workingCopies },
      });
      await loop.run();
      expect(new Set(seen.map((s) => s.dir)).size).toBe(3);
      expect(seen.map((s) => s.copy).sort()).toEqual(['6', '8', '9']);
      expect(seen.every((s) => s.main === '10')).toBe(true);
      expect(await readFile(join(root, 'train.txt'), 'utf8')).toBe('6');
      expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'reverted', 'kept', 'reverted']);
      expect(await readdir(temp)).toEqual([]); // every copy disposed
    },
  );

  it(
    "a copy has the workspace's files, keeps symlinks verbatim, skips " + 'excluded paths and symlinks linked ones',
    async () => {
      const workingCopies = createDirectoryWorkingCopies({
        root,
        mutable: ['train.txt'],
        tempDir: temp,
        link: ['data'],
        harness: () => createFunctionHarness('x', () => 0),
      });
      const copy = await workingCopies.create(1, 0);
      try {
        const dir = copy.dir!;
        expect(await readFile(join(dir, 'train.txt'), 'utf8')).toBe('10');
        expect(await readlink(join(dir, 'eval-link'))).toBe('eval.txt');
        expect((await lstat(join(dir, 'data'))).isSymbolicLink()).toBe(true);
        expect(await readFile(join(dir, 'data', 'big.bin'), 'utf8')).toBe('data');
        await expect(stat(join(dir, '.git'))).rejects.toThrow();
      } finally {
        await copy.dispose?.();
      }
      await expect(stat(copy.dir!)).rejects.toThrow();
    },
  );

  it(
    'adopt writes the changed mutable files (mode bit included), deletes ' + 'removed ones and returns their paths',
    async () => {
      await mkdir(join(root, 'src'));
      await writeFile(join(root, 'src', 'a.sh'), 'echo a');
      await writeFile(join(root, 'src', 'gone.txt'), 'bye');
      const workingCopies = createDirectoryWorkingCopies({
        root,
        mutable: ['src', 'train.txt'],
        readOnly: ['eval.txt'],
        tempDir: temp,
        harness: () => createFunctionHarness('x', () => 0),
      });
      const copy = await workingCopies.create(1, 0);
      try {
        await writeFile(join(copy.dir!, 'src', 'a.sh'), 'echo b');
        await chmod(join(copy.dir!, 'src', 'a.sh'), 0o755);
        await rm(join(copy.dir!, 'src', 'gone.txt'));
        await writeFile(join(copy.dir!, 'src', 'new.txt'), 'new');
        expect(await readFile(join(root, 'src', 'a.sh'), 'utf8')).toBe('echo a');
        expect(await workingCopies.adopt(copy)).toEqual(['src/a.sh', 'src/gone.txt', 'src/new.txt']);
        expect(await readFile(join(root, 'src', 'a.sh'), 'utf8')).toBe('echo b');
        expect((await stat(join(root, 'src', 'a.sh'))).mode & 0o111).not.toBe(0);
        await expect(stat(join(root, 'src', 'gone.txt'))).rejects.toThrow();
        expect(await readFile(join(root, 'src', 'new.txt'), 'utf8')).toBe('new');
        expect(await readFile(join(root, 'train.txt'), 'utf8')).toBe('10');
      } finally {
        await copy.dispose?.();
      }
    },
  );

  it('a read-only change in a copy makes that candidate rejected and is never adopted', async () => {
    const workingCopies = createDirectoryWorkingCopies({
      root,
      mutable: ['train.txt'],
      readOnly: ['eval.txt'],
      tempDir: temp,
      harness: (dir) =>
        createFunctionHarness('file', async () => Number(await readFile(join(dir, 'train.txt'), 'utf8'))),
    });
    const results = createMemoryResultsLog();
    const loop = createLoop({
      artifact: createFileArtifact({ root, mutable: ['train.txt'], readOnly: ['eval.txt'] }),
      rollback: fileRollback(root),
      results,
      proposer: {
        name: 'cheat',
        propose: async (c) => {
          const dir = c.workingCopy!.dir!;
          await writeFile(join(dir, 'train.txt'), c.workingCopy!.k === 0 ? '1' : '7');
          if (c.workingCopy!.k === 0) await writeFile(join(dir, 'eval.txt'), 'hacked');
          return { description: `slot ${c.workingCopy!.k}` };
        },
      },
      harness: createFunctionHarness('main', async () => Number(await readFile(join(root, 'train.txt'), 'utf8'))),
      scorer: createValueScorer('minimize'),
      stop: maxIterations(2),
      parallel: { candidates: 2, workingCopies },
    });
    await loop.run();
    expect(results.rows.slice(1).map((r) => [r.status, r.description])).toEqual([
      ['rejected', 'slot 0 (changed read-only eval.txt)'],
      ['kept', 'slot 1'],
    ]);
    expect(await readFile(join(root, 'eval.txt'), 'utf8')).toBe('fixed');
    expect(await readFile(join(root, 'train.txt'), 'utf8')).toBe('7');
  });

  it('invalid options are CONFIG_INVALID naming the field', () => {
    expect(() =>
      createDirectoryWorkingCopies({
        root: 'relative',
        mutable: ['a'],
        harness: () => createFunctionHarness('x', () => 0),
      }),
    ).toThrow(/root: root must be an absolute path/);
    expect(() =>
      createDirectoryWorkingCopies({ root, mutable: ['../up'], harness: () => createFunctionHarness('x', () => 0) }),
    ).toThrow(/mutable\.0/);
    expect(() =>
      createDirectoryWorkingCopies({
        root,
        mutable: ['a'],
        tempDir: join(root, 'tmp'),
        harness: () => createFunctionHarness('x', () => 0),
      }),
    ).toThrow(/tempDir: tempDir must be outside root/);
  });

  it(
    "the first copy removes this workspace's copies whose process is gone, " +
      "never a live process's or another workspace's",
    async () => {
      // A process that has exited: its pid is free (a kill -9 leaves the same state).
      const dead = spawnSync(process.execPath, ['-e', '']).pid!;
      const leftovers = {
        killed: `loop-copy-3.0-${copyOwner(root, dead)}-abc123`,
        live: `loop-copy-4.1-${copyOwner(root, process.ppid)}-def456`,
        otherWorkspace: `loop-copy-3.0-${copyOwner(join(base, 'other'), dead)}-ghi789`,
        notACopy: 'notes',
      };
      for (const name of Object.values(leftovers)) {
        await mkdir(join(temp, name), { recursive: true });
        await writeFile(join(temp, name, 'train.txt'), 'old');
      }
      const provider = createDirectoryWorkingCopies({
        root,
        mutable: ['train.txt'],
        tempDir: temp,
        harness: () => createFunctionHarness('x', () => 1),
      });
      const copy = await provider.create(5, 0);
      const names = await readdir(temp);
      expect(names).not.toContain(leftovers.killed);
      expect(names).toEqual(
        expect.arrayContaining([
          leftovers.live,
          leftovers.otherWorkspace,
          leftovers.notACopy,
          copy.dir!.split('/').at(-1),
        ]),
      );
      expect(copy.dir).toContain(`loop-copy-5.0-${copyOwner(root)}-`);
      await copy.dispose!();
    },
  );
});

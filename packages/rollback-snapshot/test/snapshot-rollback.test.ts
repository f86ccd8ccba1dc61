import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isLoopError, LoopError } from '@loop/core';
import { createSnapshotRollback, nodeSnapshotFs, type SnapshotFs } from '../src/index.js';
import { makeWorkspace, steppingClock } from './helpers.js';
import { cleanupSetup, OLD, setup, trackWorkspace, walk, ws } from './snapshot-rollback-fixture.js';

afterEach(cleanupSetup);

describe('snapshot rollback (seed 002)', () => {
  it(
    'the baseline is ONE directory 000-baseline-<UTC> holding every mutable ' +
      'file at its relative path (seed 002 setup step 5)',
    async () => {
      const { rollback, snaps } = setup();
      const report = await rollback.start();
      expect(report.baselineId).toBe('000-baseline-20261130T040000Z');
      expect(report.files).toEqual(['src/a.ts', 'src/lib/b.ts']);
      expect(readdirSync(snaps)).toEqual([report.baselineId]);
      expect(readFileSync(join(snaps, report.baselineId, 'src/lib/b.ts'), 'utf8')).toBe('b0');
      expect(statSync(join(snaps, report.baselineId, 'src/a.ts')).mtimeMs).toBe(OLD); // cp -p
    },
  );

  it(
    'the pre-edit copy is <NNN>-pre-<slug>-<safe-F>-<UTC> and only the files ' +
      'the edit will touch are copied (seed 002 loop step 3)',
    async () => {
      const { rollback, snaps } = setup();
      await rollback.start();
      const cp = await rollback.checkpoint(7, { files: ['src/lib/b.ts'], slug: 'Inline the helper!' });
      expect(cp.copies.map((c) => c.snapshot)).toEqual(['007-pre-inline-the-helper-src__lib__b.ts-20261130T040001Z']);
      expect(readdirSync(snaps).filter((n) => n.startsWith('007-'))).toEqual([
        '007-pre-inline-the-helper-src__lib__b.ts-20261130T040001Z',
      ]);
      expect(statSync(join(snaps, cp.copies[0]!.snapshot)).mtimeMs).toBe(OLD);
    },
  );

  it(
    'a revert restores with cp -p: the restored file has the snapshot mtime, ' +
      'never newer (seed 002: preserve mtime so a restored file never reads ' +
      'newer than state.json)',
    async () => {
      const { ws, rollback } = setup();
      await rollback.start();
      const cp = await rollback.checkpoint(1, { files: ['src/a.ts'], slug: 'x' });
      ws.write('src/a.ts', 'a1');
      await rollback.revert(cp, { iteration: 1 });
      expect(ws.read('src/a.ts')).toBe('a0');
      expect(Math.abs(statSync(join(ws.dir, 'src/a.ts')).mtimeMs - OLD)).toBeLessThanOrEqual(1);
      expect(rollback.lastRestore().map((r) => r.file)).toEqual(['src/a.ts']);
    },
  );

  it('a revert also restores a mutable file the edit touched without planning it, and a deleted one', async () => {
    const { ws, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1, { files: ['src/a.ts'] });
    ws.write('src/a.ts', 'a1');
    rmSync(join(ws.dir, 'src/lib'), { recursive: true });
    await rollback.revert(cp, { iteration: 1 });
    expect(ws.read('src/a.ts')).toBe('a0');
    expect(ws.read('src/lib/b.ts')).toBe('b0');
  });

  it(
    'every restore is verified: a copy that writes the wrong bytes is ' + 'RESTORE_FAILED (seed 002 restore-failed)',
    async () => {
      const fs: SnapshotFs = {
        ...nodeSnapshotFs,
        copyFile: async (s, d) => {
          await nodeSnapshotFs.copyFile(s, d);
          if (d.endsWith('a.ts') && !d.includes('snapshots')) (await import('node:fs')).writeFileSync(d, 'garbage');
        },
      };
      const { ws, rollback } = setup(undefined, { fs });
      await rollback.start();
      const cp = await rollback.checkpoint(1, { files: ['src/a.ts'] });
      ws.write('src/a.ts', 'a1');
      const error = await rollback.revert(cp, { iteration: 1 }).catch((e: unknown) => e);
      expect(isLoopError(error, 'RESTORE_FAILED')).toBe(true);
      expect((error as LoopError).message).toMatch(/SHA-256/);
    },
  );

  it(
    'a failed restore copy is RESTORE_FAILED after every file was attempted, ' +
      'naming each failure (seed 002: check the exit status of EVERY restore; ' +
      'do not advance on a mixed tree)',
    async () => {
      let failA = false;
      const fs: SnapshotFs = {
        ...nodeSnapshotFs,
        copyFile: async (s, d) => {
          if (failA && d.endsWith('/src/a.ts')) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
          await nodeSnapshotFs.copyFile(s, d);
        },
      };
      const { ws, rollback } = setup(undefined, { fs });
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      ws.write('src/a.ts', 'a1');
      ws.write('src/lib/b.ts', 'b1');
      failA = true;
      const error = (await rollback.revert(cp, { iteration: 1 }).catch((e: unknown) => e)) as LoopError;
      expect(error.code).toBe('RESTORE_FAILED');
      expect(error.details).toMatchObject({ failed: [{ file: 'src/a.ts' }], restored: ['src/lib/b.ts'] });
      expect(error.message).toMatch(/mixed tree: halt the pass/);
      expect(ws.read('src/lib/b.ts')).toBe('b0');
    },
  );

  it(
    'keep stores only the files that changed, in <NNN>-kept-<slug>-<UTC>/, ' + 'and that is the next checkpoint id',
    async () => {
      const { ws, rollback, snaps } = setup();
      await rollback.start();
      const cp = await rollback.checkpoint(3, { files: ['src/a.ts'], slug: 'tighten' });
      ws.write('src/a.ts', 'a3');
      const id = await rollback.keep(cp, undefined);
      expect(id).toBe('003-kept-tighten-20261130T040002Z');
      expect(walk(join(snaps, id)).map((p) => relative(join(snaps, id), p))).toEqual(['src/a.ts']);
      expect((await rollback.checkpoint(4)).id).toBe(id);
    },
  );

  it('snapshots live only under the run snapshots/ folder (seed 002 safety brakes)', async () => {
    const { ws, rollback, snaps } = setup();
    const before = new Set(walk(ws.dir));
    await rollback.start();
    for (let i = 1; i <= 3; i += 1) {
      const cp = await rollback.checkpoint(i, { files: ['src/a.ts'], slug: `idea ${i}` });
      ws.write('src/a.ts', `a${i}`);
      if (i === 2) await rollback.keep(cp, undefined);
      else await rollback.revert(cp, { iteration: i });
    }
    await rollback.restoreBest(rollback.currentId());
    const created = walk(ws.dir).filter((p) => !before.has(p));
    expect(created.length).toBeGreaterThan(0);
    expect(created.filter((p) => !p.startsWith(`${snaps}/`))).toEqual([]);
  });

  it(
    'start on a run that already has a baseline reuses it: resume never ' + 're-baselines (seed 002 setup step 4)',
    async () => {
      const { ws, rollback, snaps } = setup();
      const first = await rollback.start();
      const cp = await rollback.checkpoint(1, { files: ['src/a.ts'] });
      ws.write('src/a.ts', 'a1');
      const keptId = await rollback.keep(cp, undefined);
      ws.write('src/a.ts', 'interrupted');
      const again = createSnapshotRollback({
        workspace: ws.dir,
        runDir: ws.runDir,
        clock: steppingClock(Date.UTC(2026, 10, 30, 9)),
      });
      const report = await again.start();
      expect(report).toMatchObject({
        resumed: true,
        baselineId: first.baselineId,
        keptId,
        files: ['src/a.ts', 'src/lib/b.ts'],
      });
      expect(readdirSync(snaps).filter((n) => n.startsWith('000-baseline-'))).toEqual([first.baselineId]);
      await again.recover(keptId);
      expect(ws.read('src/a.ts')).toBe('a1');
    },
  );

  it('an edit planned outside the mutable surface is refused before anything is copied', async () => {
    const { rollback } = setup();
    await rollback.start();
    await expect(rollback.checkpoint(1, { files: ['README.md'] })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('options are validated at the factory: a relative workspace or a path leaving it is CONFIG_INVALID', () => {
    expect(() => createSnapshotRollback({ workspace: 'rel', runDir: '/tmp/x' })).toThrow(
      /workspace must be an absolute path/,
    );
    expect(() => createSnapshotRollback({ workspace: '/tmp', runDir: '/tmp/x', files: ['../etc/passwd'] })).toThrow(
      /files\.0/,
    );
  });

  it('a missing explicit mutable file is CONFIG_INVALID naming it', async () => {
    const ws = trackWorkspace(makeWorkspace({ 'a.ts': 'a' }));
    const rollback = createSnapshotRollback({ workspace: ws.dir, runDir: ws.runDir, files: ['a.ts', 'gone.ts'] });
    await expect(rollback.start()).rejects.toThrow(/files\.1: gone\.ts does not exist/);
  });

  it(
    "one iteration's file operations do not grow with the size of the " +
      'repository (100 vs 10,000 files; snapshots store only the touched ' +
      'files)',
    async () => {
      const countOps = async (size: number) => {
        const files: Record<string, string> = { 'src/target.ts': 'x0' };
        for (let i = 0; i < size - 1; i += 1) files[`other/f${i}.ts`] = `f${i}`;
        const w = makeWorkspace(files);
        try {
          let ops = 0;
          const counting = Object.fromEntries(
            Object.entries(nodeSnapshotFs).map(([k, fn]) => [
              k,
              (...a: unknown[]) => {
                ops += 1;
                return (fn as (...x: unknown[]) => unknown)(...a);
              },
            ]),
          ) as unknown as SnapshotFs;
          const rollback = createSnapshotRollback({
            workspace: w.dir,
            runDir: w.runDir,
            files: ['src/target.ts'],
            clock: steppingClock(),
            fs: counting,
          });
          await rollback.start();
          ops = 0;
          const cp = await rollback.checkpoint(1, { files: ['src/target.ts'] });
          w.write('src/target.ts', 'x1');
          await rollback.revert(cp, { iteration: 1 });
          return ops;
        } finally {
          w.cleanup();
        }
      };
      expect(await countOps(10_000)).toBe(await countOps(100));
    },
  );

  it('calling checkpoint before start is a clear error', async () => {
    const { rollback } = setup();
    await expect(rollback.checkpoint(1)).rejects.toThrow(/before start\(\)/);
    expect(existsSync(join(ws!.runDir, 'snapshots'))).toBe(false);
  });
});

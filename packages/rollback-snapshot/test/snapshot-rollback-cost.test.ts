// Issue 13: the snapshot rollback's per-iteration cost follows the touched files (real temp
// directories). The stat-based detector, retention of pre-edit copies, and the git-CLI surface.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSnapshotRollback, nodeSnapshotFs, type SnapshotFs, type SnapshotRollbackOptions } from '../src/index.js';
import { resolveMutableSurface } from '../src/mutable-surface.js';
import { makeWorkspace, steppingClock, type TempWorkspace } from './helpers.js';

const OLD = Date.UTC(2020, 0, 1, 12, 0, 0);
/** The file system's clock seen from a later moment: files written before the checkpoint are not racy. */
const later = { now: () => Date.now() + 60_000 };
let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const FILES = Array.from({ length: 20 }, (_, i) => `src/f${String(i).padStart(2, '0')}.ts`);

function counting() {
  const ops: string[] = [];
  const fs: SnapshotFs = {
    ...nodeSnapshotFs,
    copyFile: async (s, d) => {
      ops.push(`copy ${d}`);
      await nodeSnapshotFs.copyFile(s, d);
    },
    readFile: async (p) => {
      ops.push(`read ${p}`);
      return nodeSnapshotFs.readFile(p);
    },
  };
  return { fs, ops };
}

function setup(extra: Partial<SnapshotRollbackOptions> = {}) {
  ws = makeWorkspace(Object.fromEntries(FILES.map((f) => [f, `${f} v0`])));
  for (const f of FILES) ws.write(f, `${f} v0`, OLD);
  const c = counting();
  const rollback = createSnapshotRollback({
    workspace: ws.dir,
    runDir: ws.runDir,
    files: FILES,
    clock: steppingClock(),
    fsClock: later,
    fs: c.fs,
    ...extra,
  });
  return { ws, rollback, ops: c.ops, snaps: join(ws.runDir, 'snapshots') };
}

describe('per-iteration cost follows the touched files (issue 13)', () => {
  it(
    'without a plan, checkpoint copies nothing and revert reads and copies ' +
      'back only the files the edit touched (found by stat), a deleted one ' +
      'included',
    async () => {
      const { ws, rollback, ops } = setup();
      await rollback.start();
      ops.length = 0;
      const cp = await rollback.checkpoint(1);
      expect(cp.copies).toEqual([]);
      expect(ops).toEqual([]);
      ws.write('src/f03.ts', 'edited');
      rmSync(join(ws.dir, 'src/f07.ts'));
      await rollback.revert(cp, { iteration: 1 });
      expect([ws.read('src/f03.ts'), ws.read('src/f07.ts')]).toEqual(['src/f03.ts v0', 'src/f07.ts v0']);
      expect(rollback.lastRestore().map((r) => r.file)).toEqual(['src/f03.ts', 'src/f07.ts']);
      const touchedPaths = new Set(
        ops.map((o) => o.replace(/^\w+ /, '')).filter((p) => p.startsWith(join(ws.dir, 'src'))),
      );
      expect([...touchedPaths].sort()).toEqual([join(ws.dir, 'src/f03.ts'), join(ws.dir, 'src/f07.ts')]);
    },
  );

  it(
    'without a plan, keep stores only the touched files that changed; a ' +
      'same-size rewrite inside the racy window is still seen (hashed, not ' +
      'trusted by stat)',
    async () => {
      ws = makeWorkspace(Object.fromEntries(FILES.map((f) => [f, `${f} v0`])));
      const rollback = createSnapshotRollback({
        workspace: ws.dir,
        runDir: ws.runDir,
        files: FILES,
        clock: steppingClock(),
      }); // real fs clock: every file is racy
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      ws.write('src/f01.ts', 'src/f01.ts v1'); // same size as v0
      const id = await rollback.keep(cp, undefined);
      expect(
        readdirSync(join(ws.runDir, 'snapshots', id), { recursive: true })
          .map(String)
          .filter((n) => n.endsWith('.ts')),
      ).toEqual(['src/f01.ts']);
      const cp2 = await rollback.checkpoint(2);
      ws.write('src/f01.ts', 'src/f01.ts v2');
      await rollback.revert(cp2, { iteration: 2 });
      expect(ws.read('src/f01.ts')).toBe('src/f01.ts v1');
    },
  );

  it(
    'with a plan, a mutable file touched outside it is still restored (its ' +
      'stat changed), and only the planned files get pre-edit copies',
    async () => {
      const { ws, rollback } = setup();
      await rollback.start();
      const cp = await rollback.checkpoint(1, { files: ['src/f00.ts'], slug: 'one' });
      expect(cp.copies.map((c) => c.file)).toEqual(['src/f00.ts']);
      ws.write('src/f00.ts', 'planned edit');
      ws.write('src/f19.ts', 'unplanned edit');
      await rollback.revert(cp, { iteration: 1 });
      expect([ws.read('src/f00.ts'), ws.read('src/f19.ts')]).toEqual(['src/f00.ts v0', 'src/f19.ts v0']);
    },
  );

  it(
    'detectUnplanned: false trusts the plan: only the planned files are ' +
      'read, copied and restored, and an unplanned touch stays',
    async () => {
      const { ws, rollback, ops } = setup({ detectUnplanned: false });
      await rollback.start();
      const cp = await rollback.checkpoint(1, { files: ['src/f00.ts'] });
      ops.length = 0;
      ws.write('src/f00.ts', 'planned edit');
      ws.write('src/f19.ts', 'unplanned edit');
      await rollback.revert(cp, { iteration: 1 });
      expect([ws.read('src/f00.ts'), ws.read('src/f19.ts')]).toEqual(['src/f00.ts v0', 'unplanned edit']);
      expect(ops.filter((o) => o.includes(join(ws.dir, 'src/f19.ts')))).toEqual([]);
    },
  );

  it(
    'retention: only the pre-edit copies of the last retainIterations ' +
      'iterations stay; the baseline and kept directories are never pruned',
    async () => {
      const { ws, rollback, snaps } = setup({ retainIterations: 3 });
      await rollback.start();
      let keptId = '';
      for (let i = 1; i <= 10; i += 1) {
        const cp = await rollback.checkpoint(i, { files: ['src/f00.ts'], slug: `idea ${i}` });
        ws.write('src/f00.ts', `v${i}`);
        if (i === 4) keptId = await rollback.keep(cp, undefined);
        else await rollback.revert(cp, { iteration: i });
      }
      const names = readdirSync(snaps);
      expect(
        names
          .filter((n) => n.includes('-pre-'))
          .map((n) => n.slice(0, 3))
          .sort(),
      ).toEqual(['008', '009', '010']);
      expect(names.filter((n) => n.startsWith('000-baseline-') || n === keptId)).toHaveLength(2);
      ws.write('src/f00.ts', 'drift');
      await rollback.restoreBest(keptId);
      expect(ws.read('src/f00.ts')).toBe('v4');
    },
  );

  it(
    'a resumed process finds the pre-edit copies of the killed one and ' + 'prunes them by the same retention',
    async () => {
      const { ws, rollback, snaps } = setup({ retainIterations: 2 });
      await rollback.start();
      for (let i = 1; i <= 3; i += 1) {
        const cp = await rollback.checkpoint(i, { files: ['src/f00.ts'] });
        ws.write('src/f00.ts', `v${i}`);
        await rollback.revert(cp, { iteration: i });
      }
      const again = createSnapshotRollback({
        workspace: ws.dir,
        runDir: ws.runDir,
        clock: steppingClock(Date.UTC(2026, 10, 30, 9)),
        retainIterations: 2,
      });
      await again.start();
      await again.recover(again.currentId());
      const cp = await again.checkpoint(4, { files: ['src/f00.ts'] });
      await again.revert(cp, { iteration: 4 });
      expect(
        readdirSync(snaps)
          .filter((n) => n.includes('-pre-'))
          .map((n) => n.slice(0, 3))
          .sort(),
      ).toEqual(['003', '004']);
    },
  );
});

describe('surface scan through the git CLI (issue 13)', () => {
  it(
    'the git CLI and isomorphic-git give the same surface (tracked changes ' +
      'staged or not, untracked not ignored, deletions apart), and the CLI is ' +
      'used where git runs',
    async () => {
      ws = makeWorkspace(
        { 'src/a.ts': 'a', 'src/b.ts': 'b', 'src/c.ts': 'c', 'src/a.test.ts': 't', '.gitignore': 'ignored.ts\n' },
        { git: true },
      );
      ws.write('src/a.ts', 'a-changed');
      ws.write('src/b.ts', 'b-changed');
      ws.git('add', 'src/b.ts');
      ws.write('src/deep/new.ts', 'new');
      ws.write('ignored.ts', 'ignored');
      ws.write('src/a.test.ts', 't-changed');
      rmSync(join(ws.dir, 'src/c.ts'));
      const cli = await resolveMutableSurface({ workspace: ws.dir, git: 'cli' });
      const iso = await resolveMutableSurface({ workspace: ws.dir, git: 'isomorphic-git' });
      expect(cli.via).toBe('cli');
      expect(iso.via).toBe('isomorphic-git');
      expect({ files: cli.files, excluded: cli.excluded, deleted: cli.deleted }).toEqual({
        files: iso.files,
        excluded: iso.excluded,
        deleted: iso.deleted,
      });
      expect(cli.files).toEqual(['src/a.ts', 'src/b.ts', 'src/deep/new.ts']);
      expect((await resolveMutableSurface({ workspace: ws.dir })).via).toBe('cli');
    },
  );
});

describe('a kept deletion (issue 12: no half-restored tree)', () => {
  it(
    'a mutable file the kept candidate deleted stays deleted: a later ' +
      'revert, restoreBest and a resumed recover do not bring it back; a later ' +
      'iteration may create it again',
    async () => {
      const { ws, rollback, snaps } = setup();
      await rollback.start();
      const cp1 = await rollback.checkpoint(1);
      rmSync(join(ws.dir, 'src/f05.ts'));
      const id = await rollback.keep(cp1, undefined);
      expect(readdirSync(join(snaps, id))).toContain('.loop-deleted.json');
      const cp2 = await rollback.checkpoint(2, { files: ['src/f00.ts', 'src/f05.ts'] });
      ws.write('src/f00.ts', 'edit');
      ws.write('src/f05.ts', 'back again');
      await rollback.revert(cp2, { iteration: 2 });
      expect(FILES.filter((f) => !existsSync(join(ws.dir, f)))).toEqual(['src/f05.ts']);
      ws.write('src/f05.ts', 'drift');
      await rollback.restoreBest(id);
      expect(existsSync(join(ws.dir, 'src/f05.ts'))).toBe(false);
      ws.write('src/f05.ts', 'left by a killed iteration');
      const again = createSnapshotRollback({
        workspace: ws.dir,
        runDir: ws.runDir,
        clock: steppingClock(Date.UTC(2026, 10, 30, 9)),
      });
      await again.start();
      await again.recover(id);
      expect(existsSync(join(ws.dir, 'src/f05.ts'))).toBe(false);
      const cp3 = await again.checkpoint(3, { files: ['src/f05.ts'] });
      ws.write('src/f05.ts', 'recreated');
      const id3 = await again.keep(cp3, undefined);
      ws.write('src/f05.ts', 'drift');
      await again.restoreBest(id3);
      expect(ws.read('src/f05.ts')).toBe('recreated');
    },
  );
});

// The snapshot rollback after a process died mid-operation (issue 11 faults 1-3): what a kill -9
// leaves on disk is reproduced by an fs that fails at the named point (the rollback has no cleanup
// on error, so the leftovers are exactly a kill's), then a NEW rollback over the same run directory
// resumes. The separate-process kill tests live in @loop/autoresearch (test/kill-resume.test.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSnapshotRollback, nodeSnapshotFs, type SnapshotFs } from '../src/index.js';
import { makeWorkspace, steppingClock, type TempWorkspace } from './helpers.js';

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const FILES = ['src/a.ts', 'src/b.ts'];
const open = (w: TempWorkspace, fs?: SnapshotFs, startMs?: number) =>
  createSnapshotRollback({
    workspace: w.dir,
    runDir: w.runDir,
    files: FILES,
    clock: steppingClock(startMs),
    ...(fs ? { fs } : {}),
  });
const snapshots = (w: TempWorkspace) => readdirSync(join(w.runDir, 'snapshots')).sort();

describe('snapshot rollback after a kill (issue 11)', () => {
  it(
    'fault 2: a baseline copy that died after its first file leaves no ' +
      'baseline a later start reuses; the next start copies every mutable file ' +
      'again',
    async () => {
      ws = makeWorkspace({ 'src/a.ts': 'a0', 'src/b.ts': 'b0' });
      let copies = 0;
      const dying: SnapshotFs = {
        ...nodeSnapshotFs,
        copyFile: async (s, d) => {
          if (++copies === 2) throw new Error('killed');
          await nodeSnapshotFs.copyFile(s, d);
        },
      };
      await expect(open(ws, dying).start()).rejects.toThrow('killed');
      expect(snapshots(ws).filter((n) => /^000-baseline-\d{8}T\d{6}Z$/.test(n))).toEqual([]);
      const report = await open(ws, undefined, Date.UTC(2026, 10, 30, 6)).start();
      expect(report).toMatchObject({ resumed: false, files: FILES });
      expect(snapshots(ws)).toEqual([report.baselineId]);
      expect(readdirSync(join(ws.runDir, 'snapshots', report.baselineId, 'src')).sort()).toEqual(['a.ts', 'b.ts']);
    },
  );

  it(
    'fault 1: a candidate committed (staged) whose results row says kept but ' +
      'whose keep never ran is rolled forward by recover(keptId)',
    async () => {
      ws = makeWorkspace({ 'src/a.ts': 'a0', 'src/b.ts': 'b0' });
      const first = open(ws);
      await first.start();
      const cp = await first.checkpoint(1, { files: ['src/a.ts'], slug: 'one' });
      ws.write('src/a.ts', 'a1');
      const id = await first.commit(cp, { iteration: 1, attempt: 0, description: 'one' });
      expect(id).toMatch(/^001-kept-one-\d{8}T\d{6}Z$/);
      expect(snapshots(ws)).toContain(`${id}.staged`);
      // killed here: the row (kept, candidate id) is durable, the keep's rename never happened
      ws.write('src/a.ts', 'garbage an interrupted step left');
      const second = open(ws, undefined, Date.UTC(2026, 10, 30, 6));
      await second.start();
      await second.recover(id);
      expect(ws.read('src/a.ts')).toBe('a1');
      expect(second.currentId()).toBe(id);
      expect(snapshots(ws).filter((n) => n.includes('staged'))).toEqual([]);
    },
  );

  it(
    'fault 1: a kept directory the results log does not lead to (a keep ' +
      'whose row never landed) is set aside and never overlays a later kept ' +
      'state',
    async () => {
      ws = makeWorkspace({ 'src/a.ts': 'a0', 'src/b.ts': 'b0' });
      const first = open(ws);
      await first.start();
      const cp1 = await first.checkpoint(1, { files: ['src/a.ts'] });
      ws.write('src/a.ts', 'a1');
      const recorded = await first.keep(cp1, undefined);
      const cp2 = await first.checkpoint(2, { files: ['src/a.ts'] });
      ws.write('src/a.ts', 'a2');
      const unrecorded = await first.keep(cp2, undefined);
      // killed before iteration 2's row: the log's kept id is iteration 1's
      const second = open(ws, undefined, Date.UTC(2026, 10, 30, 6));
      await second.start();
      await second.recover(recorded);
      expect(ws.read('src/a.ts')).toBe('a1');
      expect(snapshots(ws)).toContain(`${unrecorded}.orphan`);
      const cp = await second.checkpoint(2, { files: ['src/b.ts'] });
      ws.write('src/b.ts', 'b2');
      const later = await second.keep(cp, undefined);
      ws.write('src/a.ts', 'drift');
      await second.restoreBest(later);
      expect([ws.read('src/a.ts'), ws.read('src/b.ts')]).toEqual(['a1', 'b2']);
    },
  );

  it(
    'fault 3: an unreadable kept directory at restoreBest is RESTORE_FAILED ' + 'naming it, never a raw EACCES',
    async () => {
      ws = makeWorkspace({ 'src/a.ts': 'a0', 'src/b.ts': 'b0' });
      let deny = false;
      const fs: SnapshotFs = {
        ...nodeSnapshotFs,
        readdir: async (p) => {
          if (deny && p.includes('-kept-'))
            throw Object.assign(new Error(`EACCES: permission denied, scandir '${p}'`), { code: 'EACCES' });
          return nodeSnapshotFs.readdir(p);
        },
      };
      const rollback = open(ws, fs);
      await rollback.start();
      const cp = await rollback.checkpoint(1, { files: ['src/a.ts'] });
      ws.write('src/a.ts', 'a1');
      const id = await rollback.keep(cp, undefined);
      deny = true;
      await expect(rollback.restoreBest(id)).rejects.toMatchObject({
        code: 'RESTORE_FAILED',
        message: expect.stringMatching(/kept snapshot .*-kept-.* is absent or unreadable \(EACCES/),
      });
    },
  );

  it("a revert drops the iteration's staged candidate, and a repair's second commit replaces the first", async () => {
    ws = makeWorkspace({ 'src/a.ts': 'a0', 'src/b.ts': 'b0' });
    const rollback = open(ws);
    await rollback.start();
    const cp = await rollback.checkpoint(1, { files: ['src/a.ts'] });
    ws.write('src/a.ts', 'a1');
    const first = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'x' });
    ws.write('src/a.ts', 'a1 repaired');
    const second = await rollback.commit(cp, { iteration: 1, attempt: 1, description: 'x' });
    expect(second).not.toBe(first);
    expect(snapshots(ws).filter((n) => n.endsWith('.staged'))).toEqual([`${second}.staged`]);
    await rollback.revert(cp, { iteration: 1 });
    expect(snapshots(ws).filter((n) => n.endsWith('.staged'))).toEqual([]);
    expect(ws.read('src/a.ts')).toBe('a0');
  });
});

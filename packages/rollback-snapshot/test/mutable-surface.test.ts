import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSnapshotRollback, defaultSourceFilter } from '../src/index.js';
import { resolveMutableSurface } from '../src/mutable-surface.js';
import { makeWorkspace, steppingClock, type TempWorkspace } from './helpers.js';

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

function repo() {
  ws = makeWorkspace(
    {
      'src/a.ts': 'a',
      'src/b.ts': 'b',
      'src/c.ts': 'c',
      'src/a.test.ts': 't',
      'config.json': '{}',
      '.gitignore': 'ignored.ts\n',
    },
    { git: true },
  );
  ws.write('src/a.ts', 'a-changed'); // tracked change, unstaged
  ws.write('src/b.ts', 'b-changed');
  ws.git('add', 'src/b.ts'); // tracked change, staged
  ws.write('src/new.ts', 'new'); // untracked
  ws.write('ignored.ts', 'ignored'); // ignored
  ws.write('src/a.test.ts', 't-changed'); // a test: read-only
  ws.write('config.json', '{"x":1}'); // config: read-only
  rmSync(join(ws.dir, 'src/c.ts')); // deleted
  return ws;
}

describe('mutable surface from git status, read-only (seed 002 setup step 2)', () => {
  it('the surface is tracked changes plus untracked not-ignored files, filtered to source', async () => {
    const w = repo();
    const surface = await resolveMutableSurface({ workspace: w.dir });
    expect(surface.files).toEqual(['src/a.ts', 'src/b.ts', 'src/new.ts']);
    expect(surface.excluded).toEqual(['config.json', 'src/a.test.ts']);
    expect(surface.deleted).toEqual(['src/c.ts']);
  });

  it('the default source filter keeps source files and leaves tests, .aid, .claude and config read-only', () => {
    expect(['src/x.ts', 'lib/y.py', 'cmd/main.go'].every(defaultSourceFilter)).toBe(true);
    expect(
      [
        'src/x.test.ts',
        'test/y.ts',
        '__tests__/z.js',
        '.aid/pipeline/config.json',
        '.claude/agents/r.md',
        'criteria.yaml',
        'package.json',
      ].some(defaultSourceFilter),
    ).toBe(false);
  });

  it(
    'git is only inspected: HEAD, refs and the index are unchanged after a ' +
      'whole pass (seed 002: no commit, reset, checkout, restore or clean, ' +
      'ever)',
    async () => {
      const w = repo();
      const gitState = () => ({
        head: w.git('rev-parse', 'HEAD'),
        headRef: readFileSync(join(w.dir, '.git/HEAD'), 'utf8'),
        refs: w.git('for-each-ref'),
        index: createHash('sha256')
          .update(readFileSync(join(w.dir, '.git/index')))
          .digest('hex'),
      });
      const before = gitState();
      const rollback = createSnapshotRollback({
        workspace: w.dir,
        runDir: join(w.dir, '.aid/pipeline/autoresearch/T-1'),
        clock: steppingClock(),
      });
      await rollback.start();
      const cp1 = await rollback.checkpoint(1, { files: ['src/a.ts'], slug: 'one' });
      w.write('src/a.ts', 'a1');
      await rollback.revert(cp1, { iteration: 1 });
      const cp2 = await rollback.checkpoint(2, { files: ['src/new.ts'], slug: 'two' });
      w.write('src/new.ts', 'new2');
      const best = await rollback.keep(cp2, undefined);
      const cp3 = await rollback.checkpoint(3, { files: ['src/b.ts'], slug: 'three' });
      w.write('src/b.ts', 'b3');
      await rollback.revert(cp3, { iteration: 3 });
      await rollback.restoreBest(best);
      expect(gitState()).toEqual(before);
      expect([w.read('src/a.ts'), w.read('src/b.ts'), w.read('src/new.ts')]).toEqual([
        'a-changed',
        'b-changed',
        'new2',
      ]);
    },
  );

  it('the run directory is never part of the surface even when git sees it as untracked', async () => {
    const w = repo();
    w.write('.aid/pipeline/autoresearch/T-1/helper.ts', 'x');
    const rollback = createSnapshotRollback({
      workspace: w.dir,
      runDir: join(w.dir, '.aid/pipeline/autoresearch/T-1'),
      isSource: (p) => p.endsWith('.ts') && !p.includes('.test.'),
      clock: steppingClock(),
    });
    const report = await rollback.start();
    expect(report.files).toEqual(['src/a.ts', 'src/b.ts', 'src/new.ts']);
  });

  it('a workspace that is not a repository is NOT_A_REPOSITORY, with the explicit-files way out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loop-no-repo-'));
    try {
      await expect(resolveMutableSurface({ workspace: dir })).rejects.toMatchObject({
        code: 'NOT_A_REPOSITORY',
        message: expect.stringMatching(/pass the mutable files explicitly/),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a clean working tree gives an empty surface, which start refuses with CONFIG_INVALID', async () => {
    ws = makeWorkspace({ 'src/a.ts': 'a' }, { git: true });
    const rollback = createSnapshotRollback({
      workspace: ws.dir,
      runDir: join(ws.dir, '.aid/pipeline/autoresearch/T-1'),
    });
    await expect(rollback.start()).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/surface is empty/),
    });
  });
});

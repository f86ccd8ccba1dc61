import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isLoopError, type LoopError } from '@loop/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createTreeSnapshotStore, diffTreeSnapshots, type TreeSnapshotStoreOptions } from '../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) {
    for (const sub of [d, ...listDirs(d)]) {
      try {
        chmodSync(sub, 0o755); // a test may leave a read-only directory behind
      } catch {
        // gone already
      }
    }
    rmSync(d, { recursive: true, force: true });
  }
});
function listDirs(d: string): string[] {
  if (!existsSync(d)) return [];
  return readdirSync(d, { withFileTypes: true, recursive: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(e.parentPath, e.name));
}

function world(
  files: Record<string, string> = { 'a.txt': 'a\n', 'src/b.txt': 'b\n', 'src/deep/c.txt': 'c\n' },
  over: Partial<TreeSnapshotStoreOptions> = {},
) {
  const base = mkdtempSync(join(tmpdir(), 'loop-tree-snapshot-'));
  dirs.push(base);
  const root = join(base, 'tree');
  mkdirSync(root);
  const write = (p: string, c: string) => {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), c);
  };
  for (const [p, c] of Object.entries(files)) write(p, c);
  const store = createTreeSnapshotStore({ root, storeDir: join(base, 'store'), ...over });
  const read = (p: string) => readFileSync(join(root, p), 'utf8');
  const tree = () => {
    const out: Record<string, string> = {};
    for (const e of readdirSync(root, { withFileTypes: true, recursive: true })) {
      const rel = join(e.parentPath, e.name).slice(root.length + 1);
      if (e.isSymbolicLink()) out[rel] = `-> ${readlinkSync(join(root, rel))}`;
      else if (e.isFile()) out[rel] = `${(statSync(join(root, rel)).mode & 0o777).toString(8)} ${read(rel)}`;
      else out[`${rel}/`] = (statSync(join(root, rel)).mode & 0o777).toString(8);
    }
    return out;
  };
  return { base, root, store, write, read, tree };
}

describe('whole-tree snapshot store (real temp directories)', () => {
  it(
    'restore puts back modified, deleted and mode-changed files, removes ' +
      'added files and directories, and recreates deleted directories',
    async () => {
      const w = world();
      const before = w.tree();
      const snap = await w.store.snapshot();
      w.write('a.txt', 'changed\n');
      rmSync(join(w.root, 'src', 'deep'), { recursive: true });
      w.write('new/dir/x.txt', 'new\n');
      chmodSync(join(w.root, 'src', 'b.txt'), 0o755);
      const report = await w.store.restore(snap);
      expect(w.tree()).toEqual(before);
      expect(report).toEqual({
        written: ['a.txt', 'src/deep/c.txt'],
        removed: ['new'],
        modes: ['src/b.txt'],
        created: ['src/deep'],
      });
    },
  );

  it('restore rewrites only the files that differ: an untouched file keeps its inode and mtime', async () => {
    const w = world();
    const snap = await w.store.snapshot();
    const untouched = lstatSync(join(w.root, 'src', 'b.txt'));
    w.write('a.txt', 'changed\n');
    await w.store.restore(snap);
    const after = lstatSync(join(w.root, 'src', 'b.txt'));
    expect([after.ino, after.mtimeMs]).toEqual([untouched.ino, untouched.mtimeMs]);
    expect(await w.store.restore(snap)).toEqual({ written: [], removed: [], modes: [], created: [] }); // idempotent
  });

  it(
    'a file replaced by a directory, a directory replaced by a file, and ' +
      'symlinks are restored verbatim (relative targets stay relative)',
    async () => {
      const w = world({ 'f.txt': 'f\n', 'd/inner.txt': 'i\n' });
      symlinkSync('../f.txt', join(w.root, 'd', 'link'));
      symlinkSync('missing-target', join(w.root, 'dangling'));
      const before = w.tree();
      const snap = await w.store.snapshot();
      rmSync(join(w.root, 'f.txt'));
      w.write('f.txt/under.txt', 'now a dir\n');
      rmSync(join(w.root, 'd'), { recursive: true });
      w.write('d', 'now a file\n');
      unlinkSync(join(w.root, 'dangling'));
      symlinkSync('/etc/hostname', join(w.root, 'dangling'));
      await w.store.restore(snap);
      expect(w.tree()).toEqual(before);
      expect(readlinkSync(join(w.root, 'd', 'link'))).toBe('../f.txt');
    },
  );

  it('the excluded names (.git by default) are never snapshotted, removed nor restored, at any depth', async () => {
    const w = world(
      { 'a.txt': 'a\n', '.git/HEAD': 'ref\n', 'pkg/node_modules/m.js': 'm\n' },
      { exclude: ['.git', 'node_modules'] },
    );
    const snap = await w.store.snapshot();
    expect([...snap.entries.keys()].sort()).toEqual(['a.txt', 'pkg']);
    w.write('.git/HEAD', 'changed\n');
    w.write('pkg/node_modules/n.js', 'n\n');
    w.write('a.txt', 'x\n');
    await w.store.restore(snap);
    expect(w.read('.git/HEAD')).toBe('changed\n');
    expect(w.read('pkg/node_modules/n.js')).toBe('n\n');
    expect(w.read('a.txt')).toBe('a\n');
  });

  it(
    'cost follows the change: a second snapshot copies nothing new, and only ' +
      'a changed file adds an object to the store',
    async () => {
      const w = world(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}.txt`, `file ${i}\n`])));
      const objects = () =>
        readdirSync(join(w.base, 'store', 'objects'), { recursive: true }).filter((p) => String(p).includes('/'))
          .length;
      const first = await w.store.snapshot();
      expect(objects()).toBe(50);
      const second = await w.store.snapshot();
      expect(objects()).toBe(50);
      expect(diffTreeSnapshots(first, second)).toEqual([]);
      w.write('f7.txt', 'changed\n');
      const third = await w.store.snapshot();
      expect(objects()).toBe(51);
      expect(diffTreeSnapshots(first, third)).toEqual([{ path: 'f7.txt', status: 'modified' }]);
    },
  );

  it(
    'a same-size rewrite right after a snapshot is still seen (racy files ' +
      'are re-hashed; change is never judged by mtime alone)',
    async () => {
      const w = world({ 'a.txt': 'aaaa\n' });
      const snap = await w.store.snapshot();
      w.write('a.txt', 'bbbb\n'); // same size, likely the same timestamp tick
      expect(diffTreeSnapshots(snap, await w.store.snapshot())).toEqual([{ path: 'a.txt', status: 'modified' }]);
      await w.store.restore(snap);
      expect(w.read('a.txt')).toBe('aaaa\n');
    },
  );

  it('diffTreeSnapshots lists added, deleted and modified files and symlinks, sorted, and no directories', async () => {
    const w = world();
    const a = await w.store.snapshot();
    w.write('z/new.txt', 'n\n');
    rmSync(join(w.root, 'a.txt'));
    w.write('src/b.txt', 'B\n');
    symlinkSync('b.txt', join(w.root, 'src', 'l'));
    expect(diffTreeSnapshots(a, await w.store.snapshot())).toEqual([
      { path: 'a.txt', status: 'deleted' },
      { path: 'src/b.txt', status: 'modified' },
      { path: 'src/l', status: 'added' },
      { path: 'z/new.txt', status: 'added' },
    ]);
  });

  it('a missing or corrupt object in the store is RESTORE_FAILED and the tree is not touched at all', async () => {
    const w = world();
    const snap = await w.store.snapshot();
    const entry = snap.entries.get('a.txt')!;
    if (entry.type !== 'file') throw new Error('a.txt is a file');
    const object = join(w.base, 'store', 'objects', entry.hash.slice(0, 2), entry.hash);
    chmodSync(object, 0o644);
    writeFileSync(object, 'corrupt');
    w.write('a.txt', 'changed\n');
    w.write('extra.txt', 'extra\n');
    const touched = w.tree();
    const error = (await w.store.restore(snap).catch((e: unknown) => e)) as LoopError;
    expect(isLoopError(error) && error.code).toBe('RESTORE_FAILED');
    expect(error.message).toContain('a.txt');
    expect(error.details.rolledBack).toBe(true);
    expect(w.tree()).toEqual(touched);
    expect(() => w.store.read(entry)).toThrow(/corrupt object/);
  });

  it(
    'a failure while writing puts the tree back to its state before the ' +
      'restore and is RESTORE_FAILED (no half-restored tree)',
    async () => {
      const w = world({ 'a.txt': 'a\n', 'locked/b.txt': 'b\n' });
      const snap = await w.store.snapshot();
      w.write('a.txt', 'changed\n');
      w.write('locked/b.txt', 'changed too\n');
      w.write('extra.txt', 'extra\n');
      chmodSync(join(w.root, 'locked'), 0o555); // b.txt cannot be replaced in a read-only directory
      if (process.getuid?.() === 0) return; // root ignores directory permissions
      const touched = w.tree();
      const error = (await w.store.restore(snap).catch((e: unknown) => e)) as LoopError;
      expect(isLoopError(error) && error.code).toBe('RESTORE_FAILED');
      expect(error.details).toMatchObject({ path: 'locked/b.txt', rolledBack: true });
      expect(w.tree()).toEqual(touched);
    },
  );

  it('options are validated: relative paths and a store inside the tree are CONFIG_INVALID', () => {
    expect(() => createTreeSnapshotStore({ root: 'rel', storeDir: '/tmp/s' })).toThrow(/root must be an absolute path/);
    expect(() => createTreeSnapshotStore({ root: '/tmp/t', storeDir: '/tmp/t/store' })).toThrow(
      /storeDir must be outside root/,
    );
    expect(() => createTreeSnapshotStore({ root: '/tmp/t', storeDir: '/tmp/t/.git/loop-store' })).not.toThrow();
  });

  it('restoring a snapshot of another tree is RESTORE_FAILED', async () => {
    const one = world();
    const two = world();
    const error = await one.store.restore(await two.store.snapshot()).catch((e: unknown) => e);
    expect(isLoopError(error) && error.code).toBe('RESTORE_FAILED');
  });

  it(
    'a saved snapshot is loaded by another store instance (another process ' +
      'after a kill) and restores the tree; an unsaved name loads as undefined',
    async () => {
      const w = world();
      const before = w.tree();
      await w.store.save(await w.store.snapshot(), 'kept-000');
      w.write('a.txt', 'changed\n');
      rmSync(join(w.root, 'src', 'deep'), { recursive: true });
      const fresh = createTreeSnapshotStore({ root: w.root, storeDir: join(w.base, 'store') });
      expect(await fresh.saved()).toEqual(['kept-000']);
      await fresh.restore((await fresh.load('kept-000'))!);
      expect(w.tree()).toEqual(before);
      expect(await fresh.load('kept-001')).toBeUndefined();
      await expect(fresh.save(await fresh.snapshot(), '../escape')).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    },
  );

  it(
    'the temp files a killed write leaves in the store are swept on the next ' +
      'use, and a saved snapshot whose contents are gone is RESTORE_FAILED at ' +
      'load',
    async () => {
      const w = world();
      const snap = await w.store.snapshot();
      await w.store.save(snap, 'kept-000');
      const objects = join(w.base, 'store', 'objects');
      const sub = readdirSync(objects)[0]!;
      writeFileSync(join(objects, sub, `${readdirSync(join(objects, sub))[0]}.dead.tmp`), 'half');
      writeFileSync(join(w.base, 'store', 'snapshots', 'kept-001.json.dead.tmp'), '{"form');
      const fresh = createTreeSnapshotStore({ root: w.root, storeDir: join(w.base, 'store') });
      expect(await fresh.saved()).toEqual(['kept-000']);
      const left = readdirSync(join(w.base, 'store'), { recursive: true })
        .map(String)
        .filter((n) => n.endsWith('.tmp'));
      expect(left).toEqual([]);
      rmSync(join(objects, sub), { recursive: true });
      await expect(fresh.load('kept-000')).rejects.toMatchObject({
        code: 'RESTORE_FAILED',
        message: expect.stringMatching(/names contents the store .* lacks/),
      });
    },
  );
});

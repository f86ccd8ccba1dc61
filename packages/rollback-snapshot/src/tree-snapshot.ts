import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { LoopError, parseOptions, systemClock } from '@loop/core';
import { openObjectStore } from './internal/object-store.js';
import { listManifests, MANIFEST_NAME, readManifest, sweepTemps, writeManifest } from './internal/tree-manifest.js';
import { nodeTreeSnapshotFs } from './tree-snapshot-fs.js';
import {
  applyPlan,
  compareEntries,
  currentEntries,
  isEmptyPlan,
  planRestore,
  sameEntry,
  type TreeComparison,
} from './internal/tree-restore.js';
import { createTreeWalker, type WalkVisitor } from './internal/tree-walk.js';
import { statRecord, unchanged, type StatRecord } from './internal/tree-stat-record.js';
import {
  treeSnapshotStoreOptionsSchema,
  type TreeEntry,
  type TreeRestoreReport,
  type TreeSnapshot,
  type TreeSnapshotStore,
  type TreeSnapshotStoreOptions,
} from './tree-snapshot-types.js';

const PREFIX = '[loop] [rollback-snapshot]';

/**
 * Creates a whole-tree snapshot store for `root` (collie's flow restore point; any "put the
 * worktree back exactly" need). Cost follows the change, not the tree: a snapshot is one `lstat`
 * per entry plus a read of each file changed since the store last saw it (a stat manifest: size,
 * mtime, ctime, inode), copying only contents the content-addressed store does not hold yet; a
 * restore rewrites only what differs, verified by hash, and never leaves a half-restored tree
 * (see {@link TreeSnapshotStore.restore}). Git is never run. The first snapshot of a tree reads
 * and copies every file once.
 *
 * @param options - See {@link TreeSnapshotStoreOptions}; validated with {@link treeSnapshotStoreOptionsSchema}.
 * @throws {ConfigError} `CONFIG_INVALID` naming the field (relative paths, a store inside the tree).
 */
export function createTreeSnapshotStore(options: TreeSnapshotStoreOptions): TreeSnapshotStore {
  const o = parseOptions(treeSnapshotStoreOptionsSchema, options, 'rollback-snapshot tree-snapshot');
  const root = o.root.length > 1 ? o.root.replace(/\/+$/, '') : o.root;
  const clock = o.clock ?? systemClock;
  const fs = o.fs ?? nodeTreeSnapshotFs;
  const objects = openObjectStore(o.storeDir, fs);
  const records = new Map<string, StatRecord>();
  const walker = createTreeWalker(root, new Set(o.exclude), fs);
  const abs = (path: string) => join(root, ...path.split('/'));
  let swept = false;
  /** Once per store instance: drop the temp files a killed write left in the store. */
  const sweep = () => {
    if (swept) return;
    swept = true;
    try {
      sweepTemps(fs, o.storeDir);
    } catch {
      // an unreadable store fails loudly where it is used, not here
    }
  };

  /** The entry of one walked path; a file is read and stored only when its stat record does not vouch for it. */
  const entryOf = (path: string, full: string, st: Stats, now: number): TreeEntry => {
    if (st.isDirectory()) return { type: 'dir', mode: st.mode & 0o7777 };
    if (st.isSymbolicLink()) return { type: 'symlink', target: fs.readlinkSync(full) };
    const known = records.get(path);
    if (unchanged(known, st) && known.entry.mode === (st.mode & 0o7777)) return known.entry;
    const bytes = fs.readFileSync(full);
    const record = statRecord(st, objects.put(bytes), bytes.length, now);
    records.set(path, record);
    return record.entry;
  };

  const walk = (visit: WalkVisitor): void => {
    const now = clock.now();
    try {
      walker.walk(visit, now);
    } catch (error) {
      throw new LoopError(
        'RESTORE_FAILED',
        `${PREFIX} cannot read the tree ${root}: ${(error as Error).message}; check that it exists and is readable`,
        { cause: error, details: { root } },
      );
    }
  };

  const take = (): TreeSnapshot => {
    sweep();
    const takenAt = clock.now();
    const entries = new Map<string, TreeEntry>();
    walk((path, full, st, now) => entries.set(path, entryOf(path, full, st, now)));
    for (const path of records.keys()) if (entries.get(path)?.type !== 'file') records.delete(path);
    return { root, entries, takenAt };
  };

  /** The current tree against `target`, allocating only for what differs (the restore's one walk). */
  const compare = (target: ReadonlyMap<string, TreeEntry>): TreeComparison => {
    const seen = new Set<string>();
    const differing = new Map<string, TreeEntry>();
    walk((path, full, st, now) => {
      seen.add(path);
      const want = target.get(path);
      if (want?.type === 'file' && st.isFile()) {
        const known = records.get(path);
        if (
          unchanged(known, st) &&
          (known.entry === want || (known.hash === want.hash && (st.mode & 0o7777) === want.mode))
        )
          return;
      }
      const entry = entryOf(path, full, st, now); // a differing file's bytes go to the store: the way back
      if (want === undefined || !sameEntry(entry, want)) differing.set(path, entry);
    });
    return { seen, differing };
  };

  const load = (entries: Iterable<[string, Extract<TreeEntry, { type: 'file' }>]>) => {
    const blobs = new Map<string, Buffer>();
    const missing: string[] = [];
    for (const [path, e] of entries) {
      if (blobs.has(e.hash)) continue;
      const bytes = objects.get(e.hash);
      if (bytes === undefined) missing.push(path);
      else blobs.set(e.hash, bytes);
    }
    return { blobs, missing };
  };

  const restore = (target: TreeSnapshot): TreeRestoreReport => {
    if (target.root !== root) {
      throw new LoopError(
        'RESTORE_FAILED',
        `${PREFIX} the snapshot is of ${target.root}, not of ${root}; restore it with its own store`,
        { details: { root, snapshotRoot: target.root } },
      );
    }
    const cmp = compare(target.entries);
    const plan = planRestore(cmp, target.entries);
    const report: TreeRestoreReport = {
      written: [...plan.write.map(([p]) => p), ...plan.link.map(([p]) => p)].sort(),
      removed: [...plan.remove].sort(),
      modes: plan.chmod
        .map(([p]) => p)
        .filter((p) => !plan.mkdir.includes(p))
        .sort(),
      created: [...plan.mkdir].sort(),
    };
    if (isEmptyPlan(plan)) return report;
    const { blobs, missing } = load(plan.write);
    if (missing.length > 0) {
      throw new LoopError(
        'RESTORE_FAILED',
        `${PREFIX} cannot restore ${root}: the store ${o.storeDir} lacks or has ` +
          `a corrupt copy of ${missing.join(', ')}; the tree was not touched`,
        { details: { root, missing, rolledBack: true } },
      );
    }
    const failure = applyPlan(root, plan, blobs, fs);
    if (failure === undefined) {
      const now = clock.now();
      for (const [path, e] of plan.write) records.set(path, statRecord(fs.lstatSync(abs(path)), e.hash, e.size, now));
      return report;
    }
    // Put the tree back to how it was before this call, then fail loudly.
    let rolledBack = false;
    try {
      const before = currentEntries(cmp, target.entries);
      const back = planRestore(compareEntries(take().entries, before), before);
      const undo = load(back.write);
      rolledBack = undo.missing.length === 0 && applyPlan(root, back, undo.blobs, fs) === undefined;
    } catch {
      rolledBack = false;
    }
    records.clear(); // re-hash everything next time: the stat records may describe half-written files
    walker.reset();
    const treeState = rolledBack
      ? 'the tree was put back to its state before the restore'
      : 'the tree could not be put back and may be mixed: restore it by hand ' +
        '(git checkout/clean) before continuing';
    throw new LoopError(
      'RESTORE_FAILED',
      `${PREFIX} restore of ${root} failed ` + (`at ${failure.path}: ${failure.reason}; ` + `${treeState}`),
      { details: { root, path: failure.path, reason: failure.reason, rolledBack } },
    );
  };

  const checkName = (name: string) => {
    if (!MANIFEST_NAME.test(name))
      throw new LoopError(
        'CONFIG_INVALID',
        `${PREFIX} ${JSON.stringify(name)} is not a snapshot name: use letters, ` +
          `digits, '.', '_' and '-' (at most 128, not starting with '.')`,
        { details: { name } },
      );
  };

  const save = (snapshot: TreeSnapshot, name: string): void => {
    checkName(name);
    if (snapshot.root !== root)
      throw new LoopError(
        'CONFIG_INVALID',
        `${PREFIX} the snapshot is of ${snapshot.root}, not of ${root}; save it with its own store`,
        { details: { root, snapshotRoot: snapshot.root } },
      );
    sweep();
    try {
      writeManifest(fs, o.storeDir, name, snapshot);
    } catch (error) {
      throw new LoopError(
        'STATE_WRITE_FAILED',
        `${PREFIX} cannot save snapshot ${name} ` +
          `in ${o.storeDir}: ${(error as Error).message}; free space or fix ` +
          `permissions and take the snapshot again (the previous one under that ` +
          `name, if any, is intact)`,
        { cause: error, details: { name, storeDir: o.storeDir } },
      );
    }
  };

  const loadSaved = (name: string): TreeSnapshot | undefined => {
    checkName(name);
    sweep();
    let snapshot: TreeSnapshot | undefined;
    try {
      snapshot = readManifest(fs, o.storeDir, name);
    } catch (error) {
      throw new LoopError(
        'RESTORE_FAILED',
        `${PREFIX} the saved snapshot ${name} in ${o.storeDir} is unreadable: ${(error as Error).message}`,
        { cause: error, details: { name, storeDir: o.storeDir } },
      );
    }
    if (snapshot === undefined) return undefined;
    if (snapshot.root !== root)
      throw new LoopError(
        'RESTORE_FAILED',
        `${PREFIX} the saved snapshot ${name} is of ${snapshot.root}, not of ${root}`,
        { details: { name, root, snapshotRoot: snapshot.root } },
      );
    const missing = [...snapshot.entries].filter(([, e]) => e.type === 'file' && !objects.has(e.hash)).map(([p]) => p);
    if (missing.length > 0)
      throw new LoopError(
        'RESTORE_FAILED',
        `${PREFIX} the saved snapshot ${name} names contents the ` +
          `store ${o.storeDir} lacks ` +
          `(${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''})`,
        { details: { name, missing } },
      );
    return snapshot;
  };

  return {
    name: `tree-snapshot(${root})`,
    root,
    snapshot: async () => take(),
    restore: async (snapshot) => restore(snapshot),
    save: async (snapshot, name) => save(snapshot, name),
    load: async (name) => loadSaved(name),
    saved: async () => {
      sweep();
      return listManifests(fs, o.storeDir);
    },
    read: (entry) => {
      const bytes = objects.get(entry.hash);
      if (bytes === undefined)
        throw new LoopError(
          'RESTORE_FAILED',
          `${PREFIX} the store ${o.storeDir} lacks or has a corrupt object ${entry.hash}`,
          { details: { hash: entry.hash } },
        );
      return bytes;
    },
  };
}

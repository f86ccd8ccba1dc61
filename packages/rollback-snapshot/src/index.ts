/**
 * @loop/rollback-snapshot: the snapshot-copy rollback of seed 002 (autoresearch). The mutable
 * surface comes from the workspace's git status, read-only (one `git status` through
 * @loop/rollback-git where git runs, else isomorphic-git), or is given explicitly; setup copies
 * every mutable file into `snapshots/000-baseline-<UTC>/`; each iteration copies only the files it
 * is about to touch to `snapshots/<NNN>-pre-<slug>-<safe-F>-<UTC>` (touched files are found by
 * stat, like git's index, so an iteration without a plan copies only what it touched); a revert
 * copies them back with their mtime (`cp -p`) and verifies every file by SHA-256; a failed restore is the loud
 * `RESTORE_FAILED` (`restore-failed`); on stop, `restoreBest` returns the editable set to the best
 * kept version (or the baseline) after checking the target snapshot is readable. Git is never
 * written: no commit, reset, checkout, restore or clean.
 *
 * It also has a whole-tree snapshot store, `createTreeSnapshotStore({ root, storeDir })`: a stat
 * manifest plus a content-addressed store, so a snapshot costs one `lstat` per file plus the files
 * changed since the last one, and a restore rewrites only what differs, verified by hash, putting
 * the tree back if it fails (`RESTORE_FAILED`); `save`/`load` keep a snapshot across processes (a
 * manifest renamed into place after its contents). collie's flow pipeline restores worktrees with it.
 *
 * @example
 * import { createSnapshotRollback } from '@loop/rollback-snapshot';
 *
 * const rollback = createSnapshotRollback({ workspace, runDir: `${workspace}/.aid/pipeline/autoresearch/T-1` });
 * const { files, baselineId } = await rollback.start();      // surface from git status; baseline copied
 * const cp = await rollback.checkpoint(1, { files: ['src/parse.ts'], slug: 'early-return' });
 * // ... edit src/parse.ts, score it; equal or worse:
 * await rollback.revert(cp, { iteration: 1 });               // cp -p back, verified by hash
 * await rollback.restoreBest(rollback.currentId());          // on stop
 *
 * @packageDocumentation
 * @module @loop/rollback-snapshot
 */
export { createSnapshotRollback } from './snapshot-rollback.js';
export type {
  SnapshotRollback,
  SnapshotCheckpoint,
  SnapshotPlan,
  PreEditCopy,
  SnapshotStartReport,
  RestoredFile,
} from './snapshot-rollback-types.js';
export { snapshotRollbackOptionsSchema } from './snapshot-rollback-options.js';
export type { SnapshotRollbackOptions } from './snapshot-rollback-options.js';
export { defaultSourceFilter } from './mutable-surface.js';
export { nodeSnapshotFs } from './snapshot-fs.js';
export type { SnapshotFs, SnapshotStats } from './snapshot-fs.js';
export { createTreeSnapshotStore } from './tree-snapshot.js';
export { diffTreeSnapshots } from './diff-tree-snapshots.js';
export { treeSnapshotStoreOptionsSchema } from './tree-snapshot-types.js';
export type {
  TreeSnapshotStore,
  TreeSnapshotStoreOptions,
  TreeSnapshot,
  TreeEntry,
  TreeChange,
  TreeRestoreReport,
} from './tree-snapshot-types.js';
export { nodeTreeSnapshotFs } from './tree-snapshot-fs.js';
export type { TreeSnapshotFs } from './tree-snapshot-fs.js';

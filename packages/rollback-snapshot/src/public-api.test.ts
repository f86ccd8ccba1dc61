// The public names of @loop/rollback-snapshot: adding or removing one is a deliberate change (issue 30).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { undocumentedExports } from '@loop/internal-test-utils';

describe('@loop/rollback-snapshot public entries', () => {
  it(
    '@loop/rollback-snapshot: the entry exports exactly these names, each ' +
      'with TSDoc (a change here is deliberate)',
    () => {
      const { exports, undocumented } = undocumentedExports(fileURLToPath(new URL('./index.ts', import.meta.url)));
      expect([...exports].sort()).toEqual([
        'PreEditCopy',
        'RestoredFile',
        'SnapshotCheckpoint',
        'SnapshotFs',
        'SnapshotPlan',
        'SnapshotRollback',
        'SnapshotRollbackOptions',
        'SnapshotStartReport',
        'SnapshotStats',
        'TreeChange',
        'TreeEntry',
        'TreeRestoreReport',
        'TreeSnapshot',
        'TreeSnapshotFs',
        'TreeSnapshotStore',
        'TreeSnapshotStoreOptions',
        'createSnapshotRollback',
        'createTreeSnapshotStore',
        'defaultSourceFilter',
        'diffTreeSnapshots',
        'nodeSnapshotFs',
        'nodeTreeSnapshotFs',
        'snapshotRollbackOptionsSchema',
        'treeSnapshotStoreOptionsSchema',
      ]);
      expect(undocumented).toEqual([]);
    },
    120_000,
  );
  it(
    '@loop/rollback-snapshot/snapshot-names: the entry exports exactly these ' +
      'names, each with TSDoc (a change here is deliberate)',
    () => {
      const { exports, undocumented } = undocumentedExports(
        fileURLToPath(new URL('./snapshot-names.ts', import.meta.url)),
      );
      expect([...exports].sort()).toEqual([
        'BASELINE_DIR_PATTERN',
        'KEPT_DIR_PATTERN',
        'PRE_EDIT_FILE_PATTERN',
        'baselineDirName',
        'keptDirName',
        'pad3',
        'preEditFileName',
        'safeFileName',
        'slugify',
        'utcStamp',
      ]);
      expect(undocumented).toEqual([]);
    },
    120_000,
  );
});

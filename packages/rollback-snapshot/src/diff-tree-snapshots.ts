import { sameEntry } from './internal/tree-restore.js';
import type { TreeChange, TreeSnapshot } from './tree-snapshot-types.js';

/**
 * The files and symlinks that differ between two snapshots, sorted by path (directories are not
 * listed; a file that became a symlink is `modified`). Pure: reads no file.
 */
export function diffTreeSnapshots(before: TreeSnapshot, after: TreeSnapshot): TreeChange[] {
  const out: TreeChange[] = [];
  for (const [path, a] of before.entries) {
    if (a.type === 'dir') continue;
    const b = after.entries.get(path);
    if (b === undefined || b.type === 'dir') out.push({ path, status: 'deleted' });
    else if (!sameEntry(a, b)) out.push({ path, status: 'modified' });
  }
  for (const [path, b] of after.entries) {
    if (b.type === 'dir') continue;
    const a = before.entries.get(path);
    if (a === undefined || a.type === 'dir') out.push({ path, status: 'added' });
  }
  return out.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

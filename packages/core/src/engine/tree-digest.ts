import { createHash } from 'node:crypto';
import { DELETED, type ArtifactSnapshot } from '../contracts/artifact.js';

/**
 * A digest of an artifact's observable content: equal for two snapshots that hold the same
 * entries, whatever their order; deleted entries do not count. The engine keys the trees it has
 * evaluated in this run by it, so a candidate identical to an earlier one is not evaluated again.
 */
export function treeDigest(snapshot: ArtifactSnapshot): string {
  const hash = createHash('sha1');
  for (const key of Object.keys(snapshot).sort()) {
    const value = snapshot[key];
    if (value === null || value === undefined || value === DELETED) continue;
    hash.update(key).update('\0').update(value).update('\n');
  }
  return hash.digest('hex');
}

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isUnder, type Artifact, type ArtifactSnapshot } from '@loop/core';
import type { GitResetRollback } from '@loop/rollback-git';

async function hashFile(path: string): Promise<string | null> {
  try {
    return createHash('sha256').update(await readFile(path)).digest('hex');
  } catch {
    return null;
  }
}

/**
 * The auto-iterate artifact: the target and read-only files, plus every other path git sees
 * changed in the workspace. A proposal that creates, edits or deletes any file outside the
 * targets is then `rejected` and rolled back (seed 001: CANNOT modify files outside the target
 * scope; results.tsv, run.log and `.loop/` are excluded from git and so never count).
 */
export function createWorkspaceArtifact(files: Artifact, rollback: Pick<GitResetRollback, 'changedPaths'>): Artifact {
  const root = files.root ?? '';
  const covered = (path: string) => [...files.mutable, ...files.readOnly].some((p) => isUnder(path, p));
  return {
    name: `workspace(${files.name})`,
    root,
    mutable: files.mutable,
    readOnly: files.readOnly,
    inspect: async (): Promise<ArtifactSnapshot> => {
      const snapshot: Record<string, string | null> = { ...(await files.inspect()) };
      for (const path of await rollback.changedPaths()) {
        if (!covered(path)) snapshot[path] = await hashFile(join(root, path));
      }
      return snapshot;
    },
  };
}

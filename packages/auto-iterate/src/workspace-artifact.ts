import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Artifact, type ArtifactSnapshot } from '@loop/core';
import { changeReason, DELETED, isUnder, surfaceValue } from '@loop/core/artifacts';
import type { GitResetRollback } from '@loop/rollback-git';

/** Folders the outward-symlink walk does not enter (git's own, dependencies, the run's files). */
const SKIP = new Set(['.git', 'node_modules', '.loop']);

/**
 * Every symlink under `root` (relative paths), not entering {@link SKIP} folders or following links; one readdir per
 * folder, no lstat.
 */
async function findSymlinks(root: string, rel = '', out: string[] = []): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(join(root, rel), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (SKIP.has(entry.name)) continue;
    const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isSymbolicLink()) out.push(path);
    else if (entry.isDirectory()) await findSymlinks(root, path, out);
  }
  return out;
}

/**
 * The auto-iterate artifact: the target and read-only files, plus every other path git sees
 * changed in the workspace, plus the symlinks that point outside the workspace. A proposal that
 * creates, edits or deletes a file outside the targets, creates a symlink outside them (to a
 * folder, dangling, or pointing anywhere), creates a symlink pointing outside the workspace even
 * inside a target folder, or writes through such a link, is then `rejected` and rolled back, and
 * the row says which path and why (an edited tracked file by its path, a created one as
 * `(new file)`; seed 001: CANNOT modify files outside the target scope;
 * results.tsv, run.log and `.loop/` are excluded from git and so never count).
 *
 * What is rolled back: every path inside the workspace (git restores tracked files and removes
 * what the candidate created). What is not: a write that landed outside the workspace through a
 * symlink is detected and reported (`not undone`), never restored. A write to `../outside.txt`
 * by path is not seen at all without a sandbox (docs/safety.md, "What the surface check catches").
 *
 * Cost: the symlinks already in the workspace are found by one walk at the first `inspect()`
 * (skipping `.git`, `node_modules`, `.loop`); later ones show up in git's changed paths. Each
 * `changedEntries()` is a `git status`-like scan (`readdir` + `lstat`, hashing only files whose
 * index stats changed); with the rollback's `reuseScans` (auto-iterate without `parallel`) the
 * inspection right after a revert reuses the revert's clean tree, and the commit after the
 * after-edit inspection commits what that inspection found (issue 13). With the rollback's
 * `watch` (auto-iterate's default) a scan after the first one `lstat`s only what inotify
 * reported touched since the previous scan, and walks the whole tree again on any doubt (issue 31).
 */
export function createWorkspaceArtifact(files: Artifact, rollback: Pick<GitResetRollback, 'changedEntries'>): Artifact {
  const root = files.root ?? '';
  const covered = (path: string) => [...files.mutable, ...files.readOnly].some((p) => isUnder(path, p));
  let existingLinks: Promise<string[]> | undefined;
  // Changed paths outside the listed files that the run branch's tip has (edited or deleted, not
  // new), from the last inspect: a snapshot lists them only once changed, so "absent before" does
  // not mean "new" for them.
  let tracked = new Set<string>();
  return {
    name: `workspace(${files.name})`,
    root,
    mutable: files.mutable,
    readOnly: files.readOnly,
    inspect: async (): Promise<ArtifactSnapshot> => {
      const snapshot: Record<string, string | null> = { ...(await files.inspect()) };
      existingLinks ??= findSymlinks(root);
      for (const path of await existingLinks) {
        if (covered(path)) continue;
        const value = await surfaceValue(root, path);
        if (value?.startsWith('outside-link:')) snapshot[path] = value;
      }
      const outside = (await rollback.changedEntries()).filter((entry) => !covered(entry.path));
      for (const { path } of outside) snapshot[path] = (await surfaceValue(root, path)) ?? DELETED;
      tracked = new Set(outside.filter((entry) => entry.inTip).map((entry) => entry.path));
      return snapshot;
    },
    // A tracked file absent from the before snapshot existed: label it as an edit (or what replaced it), not as new.
    describeChange: (path, before, after) =>
      before === null && tracked.has(path) ? changeReason('tracked', after) : undefined,
  };
}

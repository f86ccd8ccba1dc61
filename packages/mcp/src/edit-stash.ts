import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { changedFilesSince, discardChanges } from '@loop/rollback-git';

/** One file of the agent's edit: its bytes (base64), or `null` when the edit deleted it. */
export interface StashedFile {
  /** Path relative to the workspace, `/`-separated. */
  readonly path: string;
  /** The file's bytes, base64; `null` for a deletion. */
  readonly content: string | null;
}

/** The agent's uncommitted edit, as `bin/apply-edit.mjs` re-applies it. */
export interface StashedEdit {
  /** The one-line description the row gets. */
  readonly description: string;
  /** The changed files. */
  readonly files: readonly StashedFile[];
}

/** Where the edit is stashed while the loop runs: inside `.git`, so it never counts as a change. */
export function stashPath(dir: string): string {
  return join(dir, '.git', 'loop-mcp-edit.json');
}

/**
 * The paths the agent changed since HEAD (tracked edits, deletions, new untracked files; excluded
 * and ignored files do not count), without `skip` (the config file) and `.loop/`.
 */
export async function agentChanges(dir: string, skip: readonly string[]): Promise<{ path: string; status: 'added' | 'modified' | 'deleted' }[]> {
  const changed = await changedFilesSince({ cwd: dir }, 'HEAD');
  return changed.filter((f) => !skip.includes(f.path) && !f.path.startsWith('.loop/'));
}

/**
 * Moves the agent's uncommitted edit out of the tree: writes it to {@link stashPath}, then
 * restores the tree to HEAD (`@loop/rollback-git`'s `discardChanges`, plus removing the files the
 * edit added), so the loop starts from the last kept state and its proposer re-applies the edit.
 *
 * @returns the stash, or `undefined` when nothing changed.
 */
export async function stashAgentEdit(dir: string, description: string, skip: readonly string[]): Promise<StashedEdit | undefined> {
  const changes = await agentChanges(dir, skip);
  if (changes.length === 0) return undefined;
  const files: StashedFile[] = [];
  for (const c of changes) files.push({ path: c.path, content: c.status === 'deleted' ? null : (await readFile(join(dir, c.path))).toString('base64') });
  const edit: StashedEdit = { description, files };
  await writeFile(stashPath(dir), `${JSON.stringify(edit)}\n`);
  await discardChanges({ cwd: dir });
  for (const c of changes) if (c.status === 'added') await rm(join(dir, c.path), { force: true });
  return edit;
}

/**
 * When the stash is still there (the loop never reached its proposer: a refused start, a stop
 * policy that fired first), puts the agent's edit back into the tree and removes the stash.
 *
 * @returns true when the edit was put back (it was not evaluated).
 */
export async function restoreUnappliedEdit(dir: string): Promise<boolean> {
  let edit: StashedEdit;
  try {
    edit = JSON.parse(await readFile(stashPath(dir), 'utf8')) as StashedEdit;
  } catch {
    return false;
  }
  for (const f of edit.files) {
    const path = join(dir, f.path);
    if (f.content === null) await rm(path, { force: true });
    else {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, Buffer.from(f.content, 'base64'));
    }
  }
  await rm(stashPath(dir), { force: true });
  return true;
}

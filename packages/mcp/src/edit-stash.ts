import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { McpToolError } from './errors.js';

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
 * The paths changed since HEAD (tracked edits, deletions, new untracked files; excluded and
 * ignored files do not count, nor `.loop/`).
 */
export async function agentChanges(dir: string): Promise<{ path: string; status: 'added' | 'modified' | 'deleted' }[]> {
  const { changedFilesSince } = await import('@loop/rollback-git'); // git is loaded by the first tool call, not at start-up
  const changed = await changedFilesSince({ cwd: dir }, 'HEAD');
  return changed.filter((f) => !f.path.startsWith('.loop/'));
}

/** Whether `path` is one of `targets` or inside one of them (a target folder). */
export function isUnderTargets(path: string, targets: readonly string[]): boolean {
  return targets.some((t) => {
    const base = t.replace(/^\.\//, '').replace(/\/+$/, '');
    return base === '' || base === '.' || path === base || path.startsWith(`${base}/`);
  });
}

/**
 * Moves the agent's uncommitted edit out of the tree: writes it to {@link stashPath}, then
 * restores the tree to HEAD (`@loop/rollback-git`'s `discardChanges`: `git reset --hard` and
 * `git clean -fd`), so the loop starts from the last kept state and its proposer re-applies the
 * edit. Every changed path must be inside `targets` (seed 001: nothing outside the target scope
 * changes), so no other uncommitted file is ever cleaned away.
 *
 * @returns the stash, or `undefined` when nothing changed.
 * @throws {McpToolError} `OUTSIDE_TARGETS` naming the paths outside `targets` (the tree is left as it is).
 */
export async function stashAgentEdit(dir: string, description: string, targets: readonly string[]): Promise<StashedEdit | undefined> {
  const changes = await agentChanges(dir);
  if (changes.length === 0) return undefined;
  const outside = changes.filter((c) => !isUnderTargets(c.path, targets)).map((c) => c.path);
  if (outside.length > 0) throw new McpToolError('OUTSIDE_TARGETS', `uncommitted changes outside the target files (${targets.join(', ')}): ${outside.join(', ')}; commit or remove them first (loop_evaluate evaluates edits to the targets only)`);
  const files: StashedFile[] = [];
  for (const c of changes) files.push({ path: c.path, content: c.status === 'deleted' ? null : (await readFile(join(dir, c.path))).toString('base64') });
  const edit: StashedEdit = { description, files };
  await writeFile(stashPath(dir), `${JSON.stringify(edit)}\n`);
  await (await import('@loop/rollback-git')).discardChanges({ cwd: dir });
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

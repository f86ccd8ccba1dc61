import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { GitCliContext } from '@loop/rollback-git/git';

// git is loaded by the first tool call, not at start-up (`initialize` loads no engine).
const runGit = async (ctx: GitCliContext, args: readonly string[]): Promise<string> =>
  (await import('@loop/rollback-git/git')).runGit(ctx, args);

/**
 * The ref that holds an agent's edit while the server opens a trial under it (see
 * {@link holdEdit}): a commit on top of the last kept state, so the edit survives a kill.
 */
export const HELD_EDIT_REF = 'refs/loop/mcp/held-edit';

/** One changed path, git's view since HEAD. */
export interface AgentChange {
  /** Relative to the workspace, `/`-separated. */
  readonly path: string;
  /** What the edit did to it. */
  readonly status: 'added' | 'modified' | 'deleted';
}

/**
 * The paths changed since HEAD (tracked edits, deletions, new untracked files; excluded and
 * ignored files do not count, nor `.loop/`).
 */
export async function agentChanges(dir: string): Promise<AgentChange[]> {
  const changed = await (await import('@loop/rollback-git/git')).changedFilesSince({ cwd: dir }, 'HEAD');
  return changed.filter((f) => !f.path.startsWith('.loop/'));
}

/** Whether `path` is one of `targets` or inside one of them (a target folder). */
export function isUnderTargets(path: string, targets: readonly string[]): boolean {
  return targets.some((t) => {
    const base = t.replace(/^\.\//, '').replace(/\/+$/, '');
    return base === '' || base === '.' || path === base || path.startsWith(`${base}/`);
  });
}

/** git's stdout as bytes, with extra environment (rollback-git's runGitBuffer, loaded at the first call). */
const gitBytes = async (
  dir: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<Buffer> => (await import('@loop/rollback-git/git')).runGitBuffer({ cwd: dir }, args, { env });

/**
 * Saves the agent's edit of `changes` as a commit on top of HEAD (built in a temporary index, so
 * git's index and the working tree are not touched) under {@link HELD_EDIT_REF}.
 *
 * @returns the commit (40 hex).
 */
export async function holdEdit(dir: string, changes: readonly AgentChange[]): Promise<string> {
  const index = join(dir, '.git', 'loop-mcp-held-edit.index');
  const env = {
    GIT_INDEX_FILE: index,
    GIT_AUTHOR_NAME: 'loop mcp',
    GIT_AUTHOR_EMAIL: 'loop@localhost',
    GIT_COMMITTER_NAME: 'loop mcp',
    GIT_COMMITTER_EMAIL: 'loop@localhost',
  };
  try {
    await gitBytes(dir, ['read-tree', 'HEAD'], env);
    await gitBytes(dir, ['add', '-A', '--', ...changes.map((c) => c.path)], env);
    const tree = (await gitBytes(dir, ['write-tree'], env)).toString().trim();
    const message = "loop mcp: the agent's edit, held while a trial opens (loop_evaluate)";
    const oid = (await gitBytes(dir, ['commit-tree', tree, '-p', 'HEAD', '-m', message], env)).toString().trim();
    await runGit({ cwd: dir }, ['update-ref', HELD_EDIT_REF, oid]);
    return oid;
  } finally {
    await rm(index, { force: true });
  }
}

/** The held edit's commit, or `undefined` when none is held. */
export async function heldEdit(dir: string): Promise<string | undefined> {
  try {
    return (
      (await runGit({ cwd: dir }, ['rev-parse', '-q', '--verify', `${HELD_EDIT_REF}^{commit}`])).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** The paths the held edit `oid` changes against its parent. */
export async function heldChanges(dir: string, oid: string): Promise<AgentChange[]> {
  const out = (
    await gitBytes(dir, ['diff-tree', '-r', '--no-renames', '--name-status', '-z', `${oid}^`, oid])
  ).toString();
  const parts = out.split('\0').filter(Boolean);
  const changes: AgentChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const code = parts[i]!;
    changes.push({ path: parts[i + 1]!, status: code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified' });
  }
  return changes;
}

/** Writes each path of `changes` as commit `oid` has it (absent there: removed). Touches no index. */
async function writeFrom(dir: string, oid: string, changes: readonly AgentChange[]): Promise<void> {
  for (const c of changes) {
    const path = join(dir, c.path);
    const entry = (await gitBytes(dir, ['ls-tree', '-z', oid, '--', c.path])).toString().split('\0')[0] ?? '';
    await rm(path, { force: true });
    const m = /^(\d+) blob ([0-9a-f]+)\t/.exec(entry);
    if (!m) continue;
    const bytes = await gitBytes(dir, ['cat-file', 'blob', m[2]!]);
    await mkdir(dirname(path), { recursive: true });
    if (m[1] === '120000') await symlink(bytes.toString(), path);
    else {
      await writeFile(path, bytes);
      if (m[1] === '100755') await chmod(path, 0o755);
    }
  }
}

/** Puts `changes` back as HEAD has them (an added file is removed): the tree is the last kept state there. */
export function clearEdit(dir: string, changes: readonly AgentChange[]): Promise<void> {
  return writeFrom(dir, 'HEAD', changes);
}

/** Writes the held edit `oid` back into the tree (its paths as the edit left them). */
export async function restoreEdit(dir: string, oid: string): Promise<AgentChange[]> {
  const changes = await heldChanges(dir, oid);
  await writeFrom(dir, oid, changes);
  return changes;
}

/** Deletes {@link HELD_EDIT_REF}. */
export async function dropHeldEdit(dir: string): Promise<void> {
  await runGit({ cwd: dir }, ['update-ref', '-d', HELD_EDIT_REF]).catch(() => undefined);
}

/** Whether every path of the held edit `oid` is in the tree as the edit left it, and nothing else changed. */
export async function treeHoldsEdit(dir: string, oid: string): Promise<boolean> {
  const want = await heldChanges(dir, oid);
  const have = await agentChanges(dir);
  if (want.length !== have.length || want.some((w, i) => have[i]?.path !== w.path)) return false;
  for (const w of want) {
    if (w.status === 'deleted') continue;
    const blob = (await gitBytes(dir, ['hash-object', '--', w.path])).toString().trim();
    const entry = (await gitBytes(dir, ['ls-tree', '-z', oid, '--', w.path])).toString();
    if (!entry.includes(` ${blob}\t`)) return false;
  }
  return true;
}

import { mkdir, readdir, rename, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { LoopError } from '@loop/core';
import { headSha, isDirty, runGit } from '@loop/rollback-git/git';
import { readRunRows } from './results-tail.js';

/** What {@link archiveEarlierRun} moved. */
export interface ArchivedRun {
  /** The archive folder, relative to the workspace (`.loop/runs/<tag>`, or `<tag>-2`, ... when taken). */
  readonly into: string;
  /** The moved files, relative to the workspace, as they were named before the move. */
  readonly files: readonly string[];
}

/** Options of {@link archiveEarlierRun}. */
export interface ArchiveRunOptions {
  /** The workspace (the repository root), absolute. */
  readonly dir: string;
  /** The archive folder, relative to `dir` (inside the git-excluded `.loop/`, e.g. `.loop/runs/dec04-2101`). */
  readonly into: string;
  /** results.tsv, relative to `dir`. */
  readonly resultsFile: string;
  /** state.json, relative to `dir`. */
  readonly stateFile: string;
  /** The other files of a run outside `.loop/` (run log, dimensions.tsv, metric file), relative to `dir`. */
  readonly files: readonly string[];
  /** The new run's branch (`auto-iterate/<tag>`): it must not exist yet. */
  readonly branch: string;
  /** Skip the clean-tree check (the new run starts on a dirty tree). */
  readonly allowDirty: boolean;
}

/**
 * Entries of `.loop/` that stay: the archives, the pid files through which a leftover process is
 * ended, and the agent's memory folder (its notes carry over to the next run).
 */
const STAYS = /^(runs|memory|agent\.pgid|run\.pgid(\.\d+)?)$/;

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/**
 * Refuses before anything moves: the new branch exists, the earlier run stopped mid-candidate, or the tree is dirty.
 */
async function assertCanStartAfresh(o: ArchiveRunOptions, lastKept: string | undefined): Promise<void> {
  const ctx = { cwd: o.dir };
  const branchExists = await runGit(ctx, ['show-ref', '--verify', '--quiet', `refs/heads/${o.branch}`]).then(
    () => true,
    () => false,
  );
  if (branchExists) {
    throw new LoopError(
      'BRANCH_EXISTS',
      `[loop] [auto-iterate] the new run's branch ${o.branch} already exists; ` +
        `give the new run another tag (loop run --new --tag <tag>, or the ` +
        `config's tag:). Nothing was moved`,
      { details: { branch: o.branch } },
    );
  }
  const head = await runGit(ctx, ['symbolic-ref', '-q', 'HEAD']).then(
    (s) => s.trim(),
    () => '',
  );
  const sha = await headSha(ctx);
  if (lastKept && head.startsWith('refs/heads/auto-iterate/') && !sha.startsWith(lastKept)) {
    throw new LoopError(
      'RESUME_MISMATCH',
      `[loop] [auto-iterate] the earlier run was stopped ` +
        `mid-iteration: ${head.slice('refs/heads/'.length)} is ` +
        `at ${sha.slice(0, 7)}, not at its last kept commit ${lastKept}, so a new ` +
        `run would start from an unevaluated candidate. Run "loop resume" to put ` +
        `the last kept commit back (Ctrl-C stops it after restoring it), then ` +
        `"loop run --new". Nothing was moved`,
      { details: { head: sha, lastKept } },
    );
  }
  if (!o.allowDirty && (await isDirty(ctx))) {
    throw new LoopError(
      'DIRTY_WORKTREE',
      `[loop] [auto-iterate] the working tree has uncommitted changes (git ` +
        `status); commit or stash them, or pass --allow-dirty, then loop run ` +
        `--new. Nothing was moved`,
      { details: {} },
    );
  }
}

/**
 * Moves an earlier run's files out of the way so a new run can start in the same workspace
 * (`loop run --new`): results.tsv, the other run files named in `files` and every entry of
 * `.loop/` (state.json, cli.json, agent.log, checks.log, ...) except `runs/`, `memory/` (the agent's
 * notes) and the pid files,
 * into `into` (a free name: `<into>-2`, ... when taken). Call it holding the workspace lock. The
 * earlier run's branch and its `refs/loop/discarded/*` stay in git.
 *
 * Nothing moves, and it throws, when the new run could not start: its branch exists, HEAD is on
 * an `auto-iterate/*` branch whose tip is not the last kept row's commit (a run killed
 * mid-iteration: its tip is an unevaluated candidate), or the tree is dirty (without `allowDirty`).
 *
 * @returns what moved, or `undefined` when there was no earlier run (no rows, no state file).
 * @throws {LoopError} `BRANCH_EXISTS`, `RESUME_MISMATCH`, `DIRTY_WORKTREE`, `RESULTS_CORRUPT`.
 */
export async function archiveEarlierRun(o: ArchiveRunOptions): Promise<ArchivedRun | undefined> {
  const { rows } = await readRunRows(join(o.dir, o.resultsFile), join(o.dir, o.stateFile), false);
  if (rows.length === 0 && !(await exists(join(o.dir, o.stateFile)))) return undefined;
  const lastKept = rows.filter((r) => r.status === 'kept' || r.status === 'baseline').at(-1)?.candidateId || undefined;
  await assertCanStartAfresh(o, lastKept);
  let into = o.into;
  for (let n = 2; await exists(join(o.dir, into)); n += 1) into = `${o.into}-${n}`;
  await mkdir(join(o.dir, into), { recursive: true });
  const moved: string[] = [];
  const taken = new Set<string>();
  const move = async (rel: string) => {
    if (!(await exists(join(o.dir, rel)))) return;
    const name = taken.has(basename(rel)) ? rel.replaceAll('/', '_') : basename(rel);
    taken.add(name);
    await rename(join(o.dir, rel), join(o.dir, into, name));
    moved.push(rel);
  };
  for (const rel of [o.resultsFile, ...o.files]) await move(rel);
  const loopDir = o.stateFile.split('/')[0]!;
  const entries = await readdir(join(o.dir, loopDir)).catch(() => [] as string[]);
  for (const name of entries.sort()) if (!STAYS.test(name)) await move(`${loopDir}/${name}`);
  return { into, files: moved };
}

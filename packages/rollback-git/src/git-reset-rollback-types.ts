import type { CandidateInfo, Checkpoint, RevertInfo, RollbackStrategy } from '@loop/core';

/** What {@link GitResetRollback.start} did. */
export interface GitStartReport {
  /** The run branch (short name). */
  readonly branch: string;
  /** True when the run branch was created now; false when an existing one was resumed. */
  readonly created: boolean;
  /** The branch HEAD was on before (full ref), or `undefined` when HEAD was detached. */
  readonly previousBranch: string | undefined;
  /**
   * The commit the run branch points at after start; `''` when a resume found the branch's ref
   * torn or missing (`recover(keptId)` restores it from the last keep).
   */
  readonly headId: string;
  /** The patterns appended to `.git/info/exclude` (empty when all were already there). */
  readonly excludesAdded: readonly string[];
  /** What a resume repaired before anything else ran (see {@link GitResetRollback.repairs}). */
  readonly repairs: readonly string[];
}

/**
 * What the last verified reset (`revert`, `restoreBest`, `recover`, or a `keep` that found the working
 * tree changed after the commit) did.
 */
export interface GitRestoreReport {
  /** Which member ran it. */
  readonly operation: 'revert' | 'restoreBest' | 'recover' | 'keep';
  /** The commit the branch, index and working tree now hold (40 hex). */
  readonly targetId: string;
  /** The relative paths it brought to the target (written, removed or re-indexed). */
  readonly paths: readonly string[];
  /** True when the fast path did not verify and the full reset (checkout force) ran. */
  readonly fallback: boolean;
  /**
   * `revert` only: the empty directories the candidate created (not there at its checkpoint, not
   * ignored) that it removed; absent when none. Git keeps no empty directory, so a reset alone
   * would leave them.
   */
  readonly directories?: readonly string[];
}

/**
 * A {@link RollbackStrategy} that commits every candidate on a run branch and resets discarded
 * ones, on isomorphic-git (no git binary needed). All members are serialised, return promises,
 * and are safe to call again after a crash. Every member but `start` first runs `start` if it has
 * not run, then throws `LoopError` `RESTORE_FAILED` if HEAD is no longer the run branch (something
 * else checked out another branch): nothing is touched in that case.
 */
export interface GitResetRollback extends RollbackStrategy {
  /** `'git-reset'`. */
  readonly name: string;
  /** The run branch, short name. */
  readonly branch: string;
  /** The run branch, full ref (`refs/heads/<branch>`). */
  readonly branchRef: string;
  /**
   * Prepares the repository; call it before the first `checkpoint` (the first member called runs
   * it otherwise). Appends `excludes` to `.git/info/exclude`, refuses a dirty working tree unless
   * `allowDirty` (ignored and excluded files do not count; with `paths`, only those paths are
   * checked), then creates the run branch at the current HEAD and points HEAD at it, or, with
   * `resume`, checks out the existing run branch (a dirty tree is accepted when HEAD is already on
   * it: `recover` discards what an interrupted iteration left). Never moves any other branch.
   * With `resume`, first repairs what a kill can leave in `.git` (see {@link GitResetRollback.repairs}).
   * Idempotent: later calls return the first result.
   *
   * @throws {LoopError} `NOT_A_REPOSITORY` (no `.git` in `dir`, or no commit yet),
   *   `DIRTY_WORKTREE` (files listed in `details.files`), `BRANCH_EXISTS` (without `resume`).
   */
  readonly start: () => Promise<GitStartReport>;
  /**
   * Undoes a `start` that created the run branch when nothing was committed on it (a failed
   * baseline, a refused first step): points HEAD back at the branch it was on (the same commit, so
   * the index and working tree stay as they are) and deletes the run branch, so the next start
   * begins afresh. Does nothing when `start` resumed an existing branch, HEAD was detached before,
   * or the run branch has moved.
   *
   * @returns true when the run branch was removed.
   * @throws {LoopError} `RESTORE_FAILED` when the refs cannot be written.
   */
  readonly abandon: () => Promise<boolean>;
  /**
   * The kept state: `{ iteration, id }` with `id` the run branch's tip commit (40 hex).
   *
   * @throws {LoopError} `NOT_A_REPOSITORY` when the branch cannot be read.
   */
  readonly checkpoint: (iteration: number) => Promise<Checkpoint>;
  /**
   * Stages every change (added, modified, deleted files and mode changes; within `paths` when
   * given) in one `add` call and commits it as `${messagePrefix}${info.description}` with parent
   * `checkpoint.id`, moving the run branch to it. An unchanged tree still commits. Called again for
   * a repair attempt it replaces the previous candidate (amend semantics: the parent stays the
   * checkpoint). Returns the commit oid (40 hex).
   *
   * @throws {LoopError} `RESTORE_FAILED` when the commit cannot be written (the loop must halt).
   */
  readonly commit: (checkpoint: Checkpoint, info: CandidateInfo) => Promise<string>;
  /**
   * Accepts the candidate: it stays as a commit on the run branch. Verifies the branch points at
   * `candidateId` and returns it (without a candidate, returns the branch tip). What changed in the
   * working tree after the commit (the harness's writes, a user's edit; excluded paths aside) is
   * saved as `refs/loop/discarded/keep-<iteration>` (a rescue commit) and reset to the candidate, so
   * the next candidate starts from exactly the kept tree; {@link GitResetRollback.lastRestore} then
   * reports it with `operation: 'keep'`.
   *
   * @throws {LoopError} `RESTORE_FAILED` when the branch points elsewhere or the reset does not verify.
   */
  readonly keep: (checkpoint: Checkpoint, candidateId: string | undefined) => Promise<string>;
  /**
   * Discards the candidate: first points `refs/loop/discarded/<iteration>` (`-1`, `-2`, ... when
   * taken) at it so its diff stays readable, then resets branch, index and working tree to
   * `checkpoint.id` touching only the paths that differ, and verifies each by hash (falling back
   * once to a full reset). Untracked ignored files (results.tsv, run.log) survive; untracked files
   * that are not ignored are removed. Nothing it removes is lost: when the working tree holds files
   * in no commit (created or changed after the candidate commit, e.g. a file the user saved while
   * the iteration ran), the ref points instead at a rescue commit on top of the candidate holding
   * them (subject `loop: working-tree files a reset removed ...`; the candidate is its parent).
   * `restoreBest` and `recover` do the same. Idempotent.
   *
   * @throws {LoopError} `RESTORE_FAILED` naming the paths that are still wrong.
   */
  readonly revert: (checkpoint: Checkpoint, info: RevertInfo) => Promise<void>;
  /**
   * Resets to `bestId` (full or abbreviated) like `revert`, verified. When the branch was ahead,
   * its old tip stays reachable as `refs/loop/discarded/before-restore-best`.
   *
   * @throws {LoopError} `RESTORE_FAILED` when `bestId` is not a commit or the reset does not verify.
   */
  readonly restoreBest: (bestId: string) => Promise<void>;
  /**
   * On resume: `keptId` (full or the 7-character id results.tsv stores) must be the run branch's
   * tip or an ancestor of it; when HEAD or the working tree differ from it, resets to it (verified).
   * A newer tip stays reachable as `refs/loop/discarded/recovered`.
   *
   * @throws {LoopError} `RESUME_MISMATCH` when `keptId` does not exist, is ambiguous, or is not on
   *   the run branch; `RESTORE_FAILED` when the reset does not verify.
   */
  readonly recover: (keptId: string) => Promise<void>;
  /**
   * The commit HEAD points at (40 hex).
   *
   * @throws {LoopError} `NOT_A_REPOSITORY` when HEAD cannot be read.
   */
  readonly currentId: () => Promise<string>;
  /**
   * What resume repaired so far, one phrase each, in order (issue 12): at `start` with `resume`,
   * lock and temp files no live process holds (`stale .git/index.lock removed`), a torn HEAD, a
   * torn or missing run-branch ref, a torn index (`index (torn) rebuilt from abc1234`); then at
   * `recover`, the branch restored from the last keep, an orphan candidate (committed, not
   * recorded as kept) saved under `refs/loop/discarded/recovered`, and the paths reset. Print it as
   * one line with `describeRepairs`. Empty when nothing needed repair.
   */
  readonly repairs: () => readonly string[];
  /** What the last `revert`, `restoreBest` or `recover` reset did, for logs and tests. */
  readonly lastRestore: () => GitRestoreReport | undefined;
  /** With `watch`: how the scans went so far; `undefined` without it or where it cannot work. */
  readonly watchReport: () => GitWatchReport | undefined;
  /** Closes the watches of `watch` (the rollback goes on with whole-tree scans). Idempotent. */
  readonly stopWatching: () => void;
  /**
   * The paths that differ from the run branch's tip (added, modified, deleted, mode changes,
   * untracked and not ignored; within `paths` when given), sorted. What a `commit` would record;
   * an artifact uses it to see changes outside the files a proposer may touch.
   *
   * @throws {LoopError} `NOT_A_REPOSITORY` when the branch cannot be read.
   */
  readonly changedPaths: () => Promise<string[]>;
  /**
   * The paths `changedPaths()` finds, each with whether the run branch's tip has it (`inTip`:
   * a tracked file edited or deleted; false: a new file). Same scan, same order.
   *
   * @throws {LoopError} `NOT_A_REPOSITORY` when the branch cannot be read.
   */
  readonly changedEntries: () => Promise<readonly ChangedEntry[]>;
}

/** How the scans of a rollback with `watch` went (see `GitResetRollbackOptions.watch`). */
export interface GitWatchReport {
  /** Whole-tree walks (the first one, and every fallback). */
  readonly full: number;
  /** Scans that stat-ed only what the OS reported touched. */
  readonly partial: number;
  /** Why the last whole-tree walk was needed (`'not watching yet'` for the first), if any was. */
  readonly lastFallback: string | undefined;
}

/** One path that differs from the run branch's tip (see `GitResetRollback.changedEntries`). */
export interface ChangedEntry {
  /** Relative path, `/`-separated. */
  readonly path: string;
  /** True when the tip has the path (an edit or a deletion), false for a new file. */
  readonly inTip: boolean;
}

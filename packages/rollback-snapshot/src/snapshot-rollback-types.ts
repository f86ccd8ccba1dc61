import type { Checkpoint, RevertInfo, RollbackStrategy } from '@loop/core';

/**
 * The part of core's `EditPlan` the snapshot uses, given to {@link SnapshotRollback.checkpoint}: which
 * files to copy before the edit and the slug in their names (core's `EditPlan` is accepted as is).
 */
export interface SnapshotPlan {
  /**
   * The mutable files the edit will touch (relative). Only these are copied before the edit. @default none copied:
   * touched files are found by stat at keep or revert
   */
  readonly files?: readonly string[];
  /** The seed's `<short-kebab-of-the-idea>`; free text is slugified. @default 'edit' */
  readonly slug?: string;
}

/** One file's pre-edit copy. */
export interface PreEditCopy {
  /** The mutable file, relative to the workspace. */
  readonly file: string;
  /** The copy's file name inside `snapshots/` (`<NNN>-pre-<slug>-<safe-F>-<UTC>`). */
  readonly snapshot: string;
  /** SHA-256 (hex) of the copied bytes. */
  readonly sha256: string;
}

/** A checkpoint of the snapshot rollback: the kept state's id plus the pre-edit copies. */
export interface SnapshotCheckpoint extends Checkpoint {
  /**
   * The pre-edit copies taken for this iteration (seed 002 loop step 3); empty for iteration 0 (the baseline is its own
   * snapshot).
   */
  readonly copies: readonly PreEditCopy[];
  /** The slug used in the copies' names. */
  readonly slug: string;
}

/** What {@link SnapshotRollback.start} did. */
export interface SnapshotStartReport {
  /** The mutable files, relative and sorted. */
  readonly files: readonly string[];
  /** The baseline directory's name (`000-baseline-<UTC>`), also the baseline's kept id. */
  readonly baselineId: string;
  /** True when an existing, complete baseline was reused (resume: never re-baseline). */
  readonly resumed: boolean;
  /** The kept id the strategy starts from (the last kept directory on resume, else the baseline). */
  readonly keptId: string;
}

/** One file a restore touched. */
export interface RestoredFile {
  /** The mutable file, relative. */
  readonly file: string;
  /** The snapshot it was restored from (absolute). */
  readonly from: string;
}

/** The snapshot-copy {@link RollbackStrategy} with its setup and inspection members. */
export interface SnapshotRollback extends RollbackStrategy {
  /**
   * Setup (once per pass): resolves the mutable surface (explicit `files`, or git status read-only),
   * creates `<runDir>/snapshots/` and the baseline directory `000-baseline-<UTC>` holding every
   * mutable file at its relative path, copied with its mtime and mode. The baseline is copied into
   * `000-baseline-<UTC>.partial/` and renamed into place once complete, so a kill while copying
   * leaves no baseline a later start could reuse (issue 11 fault 2): a later start removes the
   * partial folder and copies the baseline again. When a complete baseline directory exists it is
   * reused (resume never re-baselines) and its files are the surface.
   *
   * @throws {ConfigError} `CONFIG_INVALID` when the surface is empty, a file is missing or not a
   *   regular file, or the run directory lies inside a mutable path.
   * @throws {LoopError} `NOT_A_REPOSITORY` when the surface comes from git and there is no repository.
   */
  readonly start: () => Promise<SnapshotStartReport>;
  /**
   * Copies the files the edit will touch (`plan.files`) to `snapshots/<NNN>-pre-<slug>-<safe-F>-<UTC>`,
   * preserving mtime (seed 002 loop step 3), `concurrency` at a time. Without `plan.files` it
   * copies nothing: the workspace is at the kept state, whose copies exist, and the files the
   * edit touches are found at keep or revert by comparing each mutable file's stat (size, mtime,
   * ctime, inode, mode) with the kept state's record, the way git's index does (a file changed
   * within the timestamp granularity of its record is hashed instead). The cost depends on the
   * files copied, never on the size of the repository. Iteration 0 (the engine's baseline
   * checkpoint) copies nothing: the baseline directory is its snapshot.
   *
   * @throws {LoopError} `CONFIG_INVALID` when a planned file is not in the mutable surface.
   */
  readonly checkpoint: (iteration: number, plan?: SnapshotPlan) => Promise<SnapshotCheckpoint>;
  /**
   * Records the candidate before it is evaluated: every touched mutable file (planned, or whose
   * stat changed) whose SHA-256 differs from the kept state is copied into `snapshots/<NNN>-kept-<slug>-<UTC>.staged/`,
   * and the future kept
   * directory's name is returned as the candidate id (the engine writes it into the results row
   * before it calls `keep`). A second call for the same iteration (a repair) replaces the staging.
   */
  readonly commit: NonNullable<RollbackStrategy['commit']>;
  /**
   * Accepts the edit: the staged directory of `candidateId` is renamed to `<NNN>-kept-<slug>-<UTC>/`
   * (without a staged candidate, the changed files are copied into a staging folder first and
   * renamed the same way), and that name is the new kept id. Only complete kept directories ever
   * carry the kept name.
   */
  readonly keep: (checkpoint: Checkpoint, candidateId: string | undefined) => Promise<string>;
  /**
   * Restores every touched mutable file (planned, or whose stat changed since the kept state: an
   * unplanned touch is restored too) that differs from the checkpoint (the pre-edit copy, else the
   * kept state) with its snapshot's bytes, mode and mtime (`cp -p`), `concurrency` files at a
   * time, and verifies each (SHA-256 and mtime), then drops the iteration's staged candidate and
   * prunes pre-edit copies older than `retainIterations`. Idempotent.
   *
   * @throws {LoopError} `RESTORE_FAILED` (seed 002 `restore-failed`) listing the files that could
   *   not be restored or did not verify; every file is attempted first. The caller must halt: the
   *   tree may be mixed.
   */
  readonly revert: (checkpoint: Checkpoint, info: RevertInfo) => Promise<void>;
  /**
   * On stop: restores the editable set to the kept state `bestId` (a kept directory, or the
   * baseline), rebuilt from disk as the baseline overlaid by the kept directories up to it. Every
   * target snapshot is checked readable first (`test -r`); nothing is copied if one is not.
   *
   * @throws {LoopError} `RESTORE_FAILED` naming the absent or unreadable snapshot (never a raw
   *   `EACCES`), or the files that failed to restore or verify.
   */
  readonly restoreBest: (bestId: string) => Promise<void>;
  /**
   * On resume, for the kept id the results log records: a kept id whose directory is still staged
   * (a kill between the results row and the keep) is completed first (roll forward: the row is the
   * truth); kept directories the log does not lead to (a later iteration number, or the same
   * number under another name: a kill after a keep whose row never landed) are set aside as
   * `<name>.orphan` so they never overlay the kept state; leftover staging is dropped; then the
   * files are restored as {@link SnapshotRollback.restoreBest} does.
   *
   * @throws {LoopError} `RESTORE_FAILED` as restoreBest.
   */
  readonly recover: (keptId: string) => Promise<void>;
  /** The current kept id. */
  readonly currentId: () => string;
  /** The mutable files (after `start`), relative and sorted. */
  readonly files: () => readonly string[];
  /** Absolute path of `<runDir>/snapshots`. */
  readonly snapshotsDir: string;
  /** The files the last revert, restoreBest or recover copied back (empty when nothing differed). */
  readonly lastRestore: () => readonly RestoredFile[];
}

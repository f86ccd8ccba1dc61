import type { MaybePromise } from '@loop/core';

/** One commit the controller asks for (seed 004 "Commit Policy"). */
export interface CommitRequest {
  /**
   * `code`: the round's code changes (Step 1); `artifacts`: end-of-round artifacts after analysis, or the completion
   * state.
   */
  readonly kind: 'code' | 'artifacts';
  /** The round number. */
  readonly round: number;
  /**
   * The commit message, built by {@link codeCommitMessage} / {@link artifactsCommitMessage} / {@link
   * completionCommitMessage}.
   */
  readonly message: string;
  /** For `artifacts`: the absolute paths to commit. For `code`: empty (every change in the app repository). */
  readonly files: readonly string[];
}

/**
 * Records commits. Injected so tests use {@link createRecordingCommitter} and production uses `createGitCommitter` (on
 * `@loop/rollback-git`).
 */
export interface Committer {
  /** Used in errors and logs. */
  readonly name: string;
  /**
   * Commits what the request names; committing nothing (no changes) is not an error. Must make no
   * commit when what the request names is already committed: after a kill the controller asks
   * again for a commit it cannot know was made, and relies on this to make it exactly once.
   */
  readonly commit: (request: CommitRequest) => MaybePromise<void>;
}

/** Seed 004: `feat(agent): autotune round N — <summary>` for the round's code changes. */
export function codeCommitMessage(round: number, summary: string): string {
  return `feat(agent): autotune round ${round} — ${oneLine(summary)}`;
}

/**
 * The end-of-round artifacts commit: `chore(autotune): round N artifacts — <recommended_action>`.
 * The seed fixes when (after analysis) and what (loop_state, scoreboard, changelog, per-task
 * updates, issues.md, cannot_handle_group.txt), not the wording: this wording is ours.
 */
export function artifactsCommitMessage(round: number, action: string): string {
  return `chore(autotune): round ${round} artifacts — ${oneLine(action)}`;
}

/** The commit of loop_state.json once status is complete: `chore(autotune): loop complete — <stop_reason>`. */
export function completionCommitMessage(stopReason: string): string {
  return `chore(autotune): loop complete — ${oneLine(stopReason)}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A committer that commits nothing: the default when the controller is not given one. */
export function noCommits(): Committer {
  return { name: 'none', commit: () => {} };
}

/** A committer that only records requests, in order: for tests and dry runs. */
export interface RecordingCommitter extends Committer {
  /** Every request received, in order. */
  readonly commits: CommitRequest[];
}

/** Creates a {@link RecordingCommitter}. `onCommit` runs after recording (a test hook). */
export function createRecordingCommitter(
  onCommit?: (request: CommitRequest) => MaybePromise<void>,
): RecordingCommitter {
  const commits: CommitRequest[] = [];
  return {
    name: 'recording',
    commits,
    commit: async (request) => {
      commits.push(request);
      await onCommit?.(request);
    },
  };
}

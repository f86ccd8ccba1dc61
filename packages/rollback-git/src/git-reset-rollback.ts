import git from 'isomorphic-git';
import { parseOptions, type LoopErrorCode } from '@loop/core';
import { gitResetRollbackOptionsSchema, type GitResetRollbackOptions } from './git-reset-rollback-options.js';
import { commitCandidate } from './internal/commit-candidate.js';
import { recoverRepairLines } from './describe-repairs.js';
import { guarded, rollbackError } from './internal/errors.js';
import { resolveRefFast } from './internal/ref-read.js';
import { gitArgs, openRepo } from './internal/repo.js';
import { expandCommitId } from './internal/repo-checks.js';
import { repairPending, startRun, type PendingRepairs } from './internal/start-run.js';
import { createResets } from './internal/save-then-reset.js';
import { createSerial } from './internal/serial.js';
import { createScanHandOff } from './internal/scan-hand-off.js';
import { scanWorktree } from './internal/worktree-scan.js';
import { flushIndex } from './internal/index-update.js';
import { byPath } from './internal/paths.js';
import { createDirectoryTracker } from './internal/new-directories.js';
import { disableJournal, enableJournal } from './internal/journals.js';
import { shortId } from './short-id.js';
import { assertOnRunBranch } from './internal/run-branch-check.js';

import type { ChangedEntry, GitResetRollback, GitRestoreReport, GitStartReport } from './git-reset-rollback-types.js';

/**
 * Creates the git-reset rollback: each candidate is a commit on the run branch; a discarded one is
 * reset away in time proportional to the files it changed (with `paths`) and verified by hash.
 *
 * @param options - See {@link GitResetRollbackOptions}; validated with
 *   {@link gitResetRollbackOptionsSchema}.
 * @throws {ConfigError} `CONFIG_INVALID` naming the invalid field (for example `dir: must be an absolute path`).
 */
export function createGitResetRollback(options: GitResetRollbackOptions): GitResetRollback {
  const opts = parseOptions(gitResetRollbackOptionsSchema, options, 'rollback-git');
  const repo = openRepo(opts.fs, opts.dir, undefined, opts.deferStagingAt);
  const branch = opts.branch;
  const branchRef = `refs/heads/${branch}`;
  const bases = opts.paths;
  const serial = createSerial();
  let started: Promise<GitStartReport> | undefined;
  let lastRestore: GitRestoreReport | undefined;
  /** What resume repaired (start's repairs, then recover's), in order. */
  const repairs: string[] = [];
  /** What a kill left torn for recover(keptId) to repair (internal/start-run.ts `PendingRepairs`). */
  const pending: PendingRepairs = { branch: false, index: false };
  /** With `watch`: the paths the OS reported touched (internal/change-journal.ts). */
  let journal = opts.watch ? enableJournal(repo, opts.watchLimits) : undefined;
  /** Empty directories a candidate created are removed on revert (git keeps none; issue 32). */
  const directories = createDirectoryTracker(repo, bases, () => (journal?.usable ? journal : undefined));
  /** With `reuseScans`: the scans handed from one step to the next (internal/scan-hand-off.ts). */
  const handOff = createScanHandOff(opts.reuseScans);
  /** The baseline's checkpoint (0) until the next checkpoint: its run's writes are reset there. */
  let afterBaseline = false;

  const args = () => gitArgs(repo);

  /** Starts; the report's `repairs` cover every repair so far (start's, then recover's). */
  const doStart = async (): Promise<GitStartReport> => {
    const run = await startRun(repo, opts, branchRef);
    repairs.push(...run.report.repairs);
    pending.branch = run.branchPending;
    pending.index = run.indexPending;
    return { ...run.report, repairs: [...repairs] };
  };

  const ensureStarted = (): Promise<GitStartReport> => {
    if (started === undefined) {
      started = guarded('NOT_A_REPOSITORY', `start in ${repo.dir}`, 'check that dir is a git working tree', doStart);
      started.catch(() => {
        started = undefined; // let the caller fix the cause and retry
      });
    }
    return started;
  };

  const tipOf = (): Promise<string> => resolveRefFast(repo, branchRef);

  /** Starts if needed, then checks HEAD is still the run branch (nothing else checked out another one). */
  const ready = async (): Promise<void> => {
    await ensureStarted();
    await assertOnRunBranch(repo, branch, pending.branch);
  };

  const expandCommit = (id: string, code: LoopErrorCode, what: string): Promise<string> =>
    expandCommitId(repo, id, code, what, branch);

  const signature = () => ({
    name: opts.author.name,
    email: opts.author.email,
    timestamp: Math.floor(opts.clock.now() / 1000),
    timezoneOffset: 0,
  });

  const { saveThenReset, resetLeftovers } = createResets({
    repo,
    branch,
    branchRef,
    bases,
    handOff,
    signature,
    restored: (report) => void (lastRestore = report),
  });

  const inspect = `inspect the repository with git status and git log ${branch}`;

  const changedEntries = (operation: string): Promise<ChangedEntry[]> =>
    serial(() =>
      guarded('NOT_A_REPOSITORY', operation, inspect, async () => {
        await ready();
        const tip = await tipOf();
        const changes = handOff.forChangedPaths(tip) ?? (await scanWorktree(repo, tip, bases));
        handOff.scanned(tip, changes);
        return changes.map((change) => ({ path: change.path, inTip: change.head !== undefined })).sort(byPath);
      }),
    );

  const rollback: GitResetRollback = {
    name: 'git-reset',
    branch,
    branchRef,
    start: () => serial(ensureStarted),

    abandon: () =>
      serial(async () => {
        const report = started === undefined ? undefined : await started.catch(() => undefined);
        const previous = report?.previousBranch;
        if (report === undefined || !report.created || previous === undefined) return false;
        handOff.drop();
        return guarded('RESTORE_FAILED', 'abandon', inspect, async () => {
          const head = await resolveRefFast(repo, 'HEAD', 2);
          if (head !== branchRef || (await tipOf()) !== report.headId) return false;
          await git.writeRef({ ...args(), ref: 'HEAD', value: previous, symbolic: true, force: true });
          await git.deleteRef({ ...args(), ref: branchRef });
          started = undefined;
          return true;
        });
      }),

    checkpoint: (iteration) =>
      serial(() =>
        guarded('NOT_A_REPOSITORY', `checkpoint ${iteration}`, inspect, async () => {
          await ready();
          handOff.checkpointed();
          const id = await tipOf();
          // What the baseline's run wrote is not the baseline (keep does the same for a candidate).
          if (afterBaseline && !opts.allowDirty) await resetLeftovers('baseline', id);
          afterBaseline = iteration === 0;
          await directories.checkpointed(iteration, id);
          return { iteration, id };
        }),
      ),

    commit: (checkpoint, info) =>
      serial(() =>
        guarded(
          'RESTORE_FAILED',
          `commit of iteration ${info.iteration}`,
          `the candidate was not recorded; ${inspect}`,
          async () => {
            await ready();
            return commitCandidate(repo, {
              branchRef,
              bases,
              known: handOff.forCommit(await tipOf()),
              parent: checkpoint.id,
              message: `${opts.messagePrefix}${info.description.replace(/\n+$/, '')}\n`,
              signature: signature(),
            });
          },
        ),
      ),

    keep: (checkpoint, candidateId) =>
      serial(() =>
        guarded('RESTORE_FAILED', `keep of iteration ${checkpoint.iteration}`, inspect, async () => {
          handOff.drop();
          await ready();
          directories.kept(checkpoint.iteration);
          const tip = await tipOf();
          if (candidateId === undefined) return tip;
          if (tip !== candidateId) {
            throw rollbackError(
              'RESTORE_FAILED',
              `keep: run branch ${branch} points at ${shortId(tip)}, not at the ` +
                `candidate ${shortId(candidateId)}; something else moved the branch ` +
                `(another git command?); ${inspect}`,
              { details: { branch, tip, candidateId } },
            );
          }
          // What changed in the working tree after the commit (the harness's own writes, a user) is not
          // the kept candidate: saved in a rescue commit (refs/loop/discarded/keep-<n>) and reset, as a
          // revert does, so the next candidate starts from exactly the kept tree.
          await resetLeftovers(`keep-${checkpoint.iteration}`, tip);
          await flushIndex(repo); // the kept candidate's staging, deferred since its commit
          return candidateId;
        }),
      ),

    revert: (checkpoint, info) =>
      serial(() =>
        guarded('RESTORE_FAILED', `revert of iteration ${info.iteration}`, inspect, async () => {
          await ready();
          const tip = await tipOf();
          const candidate = info.candidateId ?? tip;
          await saveThenReset(
            'revert',
            String(info.iteration),
            tip,
            checkpoint.id,
            candidate !== checkpoint.id ? candidate : undefined,
          );
          const removed = await directories.reverted(checkpoint.iteration, checkpoint.id);
          if (lastRestore !== undefined && removed.length > 0) lastRestore = { ...lastRestore, directories: removed };
        }),
      ),

    restoreBest: (bestId) =>
      serial(() =>
        guarded('RESTORE_FAILED', `restoreBest(${bestId})`, inspect, async () => {
          await ready();
          const best = await expandCommit(bestId, 'RESTORE_FAILED', 'restoreBest: best id');
          const tip = await tipOf();
          await saveThenReset('restoreBest', 'before-restore-best', tip, best, tip !== best ? tip : undefined);
        }),
      ),

    recover: (keptId) =>
      serial(() =>
        guarded('RESUME_MISMATCH', `recover(${keptId})`, inspect, async () => {
          handOff.drop();
          await ensureStarted();
          const kept = await expandCommit(keptId, 'RESUME_MISMATCH', 'recover: kept id');
          await repairPending(repo, pending, { branch, branchRef, kept, allowDirty: opts.allowDirty, bases }, repairs);
          await ready();
          const tip = await tipOf();
          if (tip !== kept) {
            const onBranch = await git.isDescendent({ ...args(), oid: tip, ancestor: kept, depth: -1 });
            if (!onBranch) {
              throw rollbackError(
                'RESUME_MISMATCH',
                `recover: kept commit ${shortId(kept)} is not on run branch ${branch} ` +
                  `(tip ${shortId(tip)}); results.tsv belongs to another run or the branch ` +
                  `was rewritten; ${inspect}`,
                { details: { keptId: kept, tip, branch } },
              );
            }
          }
          const { ref, rescued } = await saveThenReset(
            'recover',
            'recovered',
            tip,
            kept,
            tip !== kept ? tip : undefined,
          );
          repairs.push(...recoverRepairLines({ tip, kept, ref, rescued, restore: lastRestore }));
        }),
      ),

    currentId: () =>
      serial(() =>
        guarded('NOT_A_REPOSITORY', 'currentId', inspect, async () => {
          await ready();
          return resolveRefFast(repo, 'HEAD');
        }),
      ),

    lastRestore: () => lastRestore,

    watchReport: () => (journal?.usable ? { ...journal.counts, lastFallback: journal.lastFallback } : undefined),
    stopWatching: () => {
      if (journal !== undefined) disableJournal(repo);
      journal = undefined;
    },

    repairs: () => [...repairs],

    changedPaths: async () => (await changedEntries('changedPaths')).map((entry) => entry.path),
    changedEntries: () => changedEntries('changedEntries'),
  };
  return rollback;
}

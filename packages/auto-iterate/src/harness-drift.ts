import { isAbsolute } from 'node:path';
import { LoopError } from '@loop/core';
import { changedFilesSince } from '@loop/rollback-git/git';

/**
 * Refuses a resume while a read-only (harness) file has uncommitted changes (issue 12): the resume
 * would reset it to the last kept commit, losing the user's fix, and the next fingerprint check
 * would then halt the run with HARNESS_TAMPERED at a later iteration. Said before anything runs,
 * with what to do: put the change aside (`git stash push`) to resume with the run's harness, or
 * commit it and start a new run with a new baseline (scores of two harnesses are not comparable).
 *
 * @param dir - the repository root
 * @param harnessFiles - the read-only files, relative to `dir` (absolute `harnessFiles` outside
 *   git are checked by the fingerprint alone)
 * @throws {LoopError} `HARNESS_TAMPERED` naming the changed files and both ways forward.
 */
export async function assertHarnessCommitted(dir: string, harnessFiles: readonly string[]): Promise<void> {
  const watched = new Set(harnessFiles.filter((f) => !isAbsolute(f)));
  if (watched.size === 0) return;
  const changed = (await changedFilesSince({ cwd: dir }, 'HEAD')).map((f) => f.path).filter((p) => watched.has(p));
  if (changed.length === 0) return;
  const list = changed.join(' ');
  throw new LoopError(
    'HARNESS_TAMPERED',
    `[loop] [auto-iterate] the harness file(s) ${list} changed since the ` +
      `last kept commit and are not committed. A resume would reset them to the ` +
      `last keep (your change lost), and scores from two harnesses cannot be ` +
      `compared. To resume this run with its harness, put the change aside: git ` +
      `stash push -- ${list}; then loop resume. To judge with the changed ` +
      `harness, start a new run with a new baseline: commit it, then loop run ` +
      `--new (the earlier run's files go to .loop/runs/<its tag>/).`,
    { details: { files: changed } },
  );
}

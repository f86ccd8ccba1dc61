import { rollbackError } from './errors.js';
import { resolveRefFast } from './ref-read.js';
import type { Repo } from './repo.js';
import { shortId } from '../short-id.js';

/**
 * Checks the workspace is still on the run branch `branch`: its ref was not torn by a kill
 * (`branchPending`: resume's `recover(keptId)` restores it) and HEAD still names it.
 *
 * @throws {LoopError} `RESUME_MISMATCH` when the branch's ref is missing; `RESTORE_FAILED` when HEAD is elsewhere.
 */
export async function assertOnRunBranch(repo: Repo, branch: string, branchPending: boolean): Promise<void> {
  if (branchPending) {
    throw rollbackError(
      'RESUME_MISMATCH',
      `the run branch ${branch} lost its ref (a kill while it was written); ` +
        `resume restores it from the last keep in results.tsv: call ` +
        `recover(keptId) first (the engine does on resume), or point it by hand ` +
        `with git branch -f ${branch} <last kept commit>`,
      { details: { branch } },
    );
  }
  const head = await resolveRefFast(repo, 'HEAD', 2);
  if (head !== `refs/heads/${branch}`) {
    throw rollbackError(
      'RESTORE_FAILED',
      `HEAD is ${head.startsWith('refs/') ? `on ${head}` : `detached at ${shortId(head)}`}, ` +
        `not on the run branch ${branch}; something else checked out another ` +
        `branch during the run. Run git checkout ${branch} (after saving any ` +
        `work), then resume`,
      { details: { head, branch } },
    );
  }
}

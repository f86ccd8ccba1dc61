import type { GitRestoreReport } from '../git-reset-rollback-types.js';
import { shortId } from '../short-id.js';
import type { Signature } from './commit-candidate.js';
import { saveDiscarded } from './discarded-refs.js';
import { journalOf } from './journals.js';
import type { Repo } from './repo.js';
import { rescueWorktree } from './rescue-commit.js';
import { resetBranch } from './reset-branch.js';
import type { ScanHandOff } from './scan-hand-off.js';
import { scanWorktree, type WorktreeChange } from './worktree-scan.js';

/** What one rollback's resets share. */
export interface ResetContext {
  readonly repo: Repo;
  readonly branch: string;
  readonly branchRef: string;
  readonly bases: readonly string[] | undefined;
  readonly handOff: ScanHandOff;
  readonly signature: () => Signature;
  /** Receives the report of each verified reset (the rollback's `lastRestore`). */
  readonly restored: (report: GitRestoreReport) => void;
}

/** The two resets of a git-reset rollback; see {@link createResets}. */
export interface Resets {
  /**
   * Resets the branch from its tip to `targetOid`, first keeping what the reset discards reachable
   * as `refs/loop/discarded/<name>`: `save` (the tip when it is not the target), or, when the working
   * tree holds files in no commit (created or changed after the candidate commit), a rescue commit
   * on top of the tip holding them, so nothing a reset removes is lost. `scanned`: the working-tree
   * scan against `tip` the caller just made (else it scans).
   */
  saveThenReset(
    operation: GitRestoreReport['operation'],
    name: string,
    tip: string,
    targetOid: string,
    save: string | undefined,
    scanned?: readonly WorktreeChange[],
  ): Promise<{ ref: string | undefined; rescued: readonly string[] }>;
  /**
   * Brings the working tree back to the branch tip when something changed it after the tip was
   * committed (a harness's writes during a kept or baseline run), saved first as
   * `refs/loop/discarded/<name>`; one scan and nothing written when the tree is the tip's.
   */
  resetLeftovers(name: string, tip: string): Promise<void>;
}

/** The resets of one rollback, over its repository, branch, scan hand-off and author. */
export function createResets(c: ResetContext): Resets {
  const saveThenReset: Resets['saveThenReset'] = async (operation, name, tip, targetOid, save, scanned) => {
    c.handOff.drop();
    const changes = scanned ?? (await scanWorktree(c.repo, tip, c.bases));
    const rescue = await rescueWorktree(
      c.repo,
      tip,
      changes,
      c.signature(),
      `${operation} of ${c.branch} from ${shortId(tip)} to ${shortId(targetOid)}`,
    );
    const keep = rescue?.oid ?? save;
    const ref = keep === undefined ? undefined : await saveDiscarded(c.repo, name, keep);
    const report = await resetBranch(c.repo, c.branchRef, targetOid, c.bases, { fromOid: tip, changes });
    journalOf(c.repo)?.note(report.paths); // its own writes are events too; its index entries are examined again
    c.restored({ ...report, operation });
    // Every change the scan found was reset (and verified) or saved: the tree is the target's.
    if (operation === 'revert') c.handOff.reverted(targetOid);
    return { ref, rescued: rescue?.paths ?? [] };
  };
  return {
    saveThenReset,
    resetLeftovers: async (name, tip) => {
      const changes = await scanWorktree(c.repo, tip, c.bases);
      if (changes.length > 0) await saveThenReset('keep', name, tip, tip, undefined, changes);
    },
  };
}

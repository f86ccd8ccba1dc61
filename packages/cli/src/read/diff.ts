import { readDiscardedRefs } from '@loop/rollback-git';
import { runGit } from '@loop/rollback-git/git';
import type { ResultsData } from '../report/results.js';
import { UsageError } from '../usage-error.js';

/** What `loop diff <iteration>` shows. */
export interface IterationDiff {
  /** The iteration. */
  readonly iteration: number;
  /** Its status in results.tsv. */
  readonly status: string;
  /** Its description. */
  readonly description: string;
  /** The commit the change was recorded in (40 hex). */
  readonly commit: string;
  /** Where the commit was found: the row's own id, or `refs/loop/discarded/<name>`. */
  readonly ref: string;
  /** `git show --stat --patch` of the commit against its parent. */
  readonly patch: string;
}

/**
 * The change iteration `iteration` tried, kept or discarded, from git: a discarded or crashed
 * candidate is read from `refs/loop/discarded/<iteration>` (`@loop/rollback-git`'s
 * `readDiscardedRefs`, the last attempt), a kept one (or the baseline) from its row's commit;
 * the patch is `git show` through `runGit`. Auto-iterate runs only: an autoresearch pass keeps
 * snapshots, not commits.
 *
 * @throws {UsageError} for an unknown iteration, an autoresearch results.tsv, or a row with no commit.
 */
export async function diffIteration(dir: string, data: ResultsData, iteration: number): Promise<IterationDiff> {
  if (data.form !== 'auto-iterate')
    throw new UsageError(
      'loop diff reads git commits: an autoresearch pass keeps snapshots ' +
        'instead (see its .aid/pipeline/autoresearch/<task>/ folder)',
    );
  const row = data.points.find((p) => p.iteration === iteration);
  if (!row) throw new UsageError(`no iteration ${iteration} in results.tsv (it has 0 to ${data.points.length - 1})`);
  const discarded = (await readDiscardedRefs(dir)).filter((r) => r.iteration === iteration).at(-1);
  let commit: string | undefined;
  let ref: string;
  if (row.kind !== 'keep' && row.kind !== 'baseline' && discarded) {
    commit = discarded.oid;
    ref = discarded.ref;
  } else {
    if (!row.id)
      throw new UsageError(
        `iteration ${iteration} (${row.status}) has no commit: it ` +
          `was ${row.kind === 'discard' ? 'rejected before it was committed' : 'never recorded'}`,
      );
    ref = row.id;
  }
  const show = ['show', '--stat', '--patch', '--format=commit %H%nDate:   %ad%n%n    %s%n', commit ?? row.id];
  const patch = await runGit({ cwd: dir }, show, { advice: `the commit of iteration ${iteration} is not in ${dir}` });
  commit ??= (await runGit({ cwd: dir }, ['rev-parse', `${row.id}^{commit}`])).trim();
  return { iteration, status: row.status, description: row.description, commit, ref, patch };
}

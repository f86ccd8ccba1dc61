/**
 * Replays a pruner on a run made with pruning off (issue 27): every candidate's recorded curve
 * (`.loop/records.jsonl`) is shown to the pruner report by report against the incumbent's curve as
 * it stood when the candidate's batch started (the batch schedule's rule), so what the pruner would
 * have stopped, and what that would have saved, is known exactly without running again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IntermediateReport } from '@loop/core/contracts';
import type { Pruner } from '@loop/core';
import { readRecordData } from '@loop/core/files';

/** What {@link replayPruner} found on one run. */
export interface Replay {
  /** Candidates (rows after the baseline). */
  readonly candidates: number;
  /** Candidates the pruner would have stopped. */
  readonly pruned: number;
  /** Kept candidates. */
  readonly kept: number;
  /** Kept candidates the pruner would have stopped (false prunes). */
  readonly wouldPrune: number;
  /** Training seconds of all candidates (the `training_seconds` metric), and the share a stop would have saved. */
  readonly trainingS: number;
  readonly savedS: number;
}

/**
 * Replays `pruner` on the run in `dir` (results.tsv's statuses, row n = iteration n; the curves and
 * `training_seconds` from the records) of `steps` steps per candidate in batches of `parallel`. A
 * stop at step s saves `(1 - s / steps)` of the candidate's training time.
 */
export async function replayPruner(dir: string, pruner: Pruner, steps: number, parallel: number): Promise<Replay> {
  const data = await readRecordData(join(dir, '.loop', 'records.jsonl'));
  const statuses = readFileSync(join(dir, 'results.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t')[2]);
  let incumbent: readonly IntermediateReport[] | undefined = data.get(0)?.reports;
  let batchIncumbent = incumbent;
  const out = { candidates: 0, pruned: 0, kept: 0, wouldPrune: 0, trainingS: 0, savedS: 0 };
  for (let iteration = 1; iteration < statuses.length; iteration += 1) {
    // A batch decides against the incumbent at its start.
    if ((iteration - 1) % parallel === 0) batchIncumbent = incumbent;
    const curve = data.get(iteration)?.reports ?? [];
    const seconds = Number(data.get(iteration)?.metrics?.training_seconds ?? 0);
    const stop = curve.find(
      (report, i) =>
        pruner.check({
          iteration,
          step: report.step,
          value: report.value,
          reports: curve.slice(0, i + 1),
          direction: 'minimize',
          incumbent: batchIncumbent,
          history: [],
        }) !== undefined,
    );
    out.candidates += 1;
    out.trainingS += seconds;
    if (stop !== undefined) {
      out.pruned += 1;
      out.savedS += seconds * Math.max(0, 1 - stop.step / steps);
    }
    if (statuses[iteration] === 'keep') {
      out.kept += 1;
      if (stop !== undefined) out.wouldPrune += 1;
      incumbent = curve.length > 0 ? curve : incumbent;
    }
  }
  return out;
}

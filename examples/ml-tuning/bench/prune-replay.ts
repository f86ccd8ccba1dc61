/**
 * Replays a pruner on a run made with pruning off (issue 27): every candidate's recorded curve
 * (`.loop/records.jsonl`) is shown to the pruner report by report against the incumbent's curve as
 * it stood when the candidate's batch started (the batch schedule's rule), with the rows of the
 * earlier batches as the history (a row the replay stopped has its curve cut at the stop and
 * `data.pruned` set, as the engine would record it), so what any pruner would have stopped, and what
 * that would have saved, is known exactly without running again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IntermediateReport } from '@loop/core/contracts';
import type { IterationRecord, Pruner } from '@loop/core';
import { prunedEstimate } from '@loop/core/proposers';
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
  /**
   * Up to the iteration of the run's best keep: training seconds on the batch schedule (each batch
   * its slowest candidate: the run as it went), and the same candidates with the pruner's stops on
   * K cores packed without a gap (their sum / K, at least the longest one: what pruning and the
   * async schedule could at best make of the run's own proposals). Start-up and evaluation outside
   * training are not counted.
   * `toBestPackedS` is `Infinity` when the pruner would stop a keep up to the best: its run would
   * not have reached that best.
   */
  readonly toBestBatchS: number;
  readonly toBestPackedS: number;
  /** As `toBestPackedS` with a perfect pruner: every candidate not kept stopped at its first report. */
  readonly toBestPerfectS: number;
  /** The iteration of the run's best keep (0: no keep). */
  readonly bestIteration: number;
  /**
   * Each candidate the pruner would stop: the final score the model-based proposer would estimate
   * for it (`prunedEstimate`, from the curve of the last keep before its row, as the proposer does)
   * and the score it reached.
   */
  readonly estimates: readonly { readonly estimate: number; readonly final: number }[];
}

/**
 * Replays `pruner` on the run in `dir` (results.tsv's statuses, row n = iteration n; the curves and
 * `training_seconds` from the records) of `steps` steps per candidate in batches of `parallel`. A
 * stop at step s saves `(1 - s / steps)` of the candidate's training time.
 */
export async function replayPruner(dir: string, pruner: Pruner, steps: number, parallel: number): Promise<Replay> {
  const data = await readRecordData(join(dir, '.loop', 'records.jsonl'));
  const cells = readFileSync(join(dir, 'results.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'));
  const statuses = cells.map((c) => c[2]);
  const scores = cells.map((c) => Number(c[1]));
  const seconds: number[] = [0];
  const costs: number[] = [0];
  const perfect: number[] = [0];
  let incumbent: readonly IntermediateReport[] | undefined = data.get(0)?.reports;
  let incumbentScore = scores[0]!;
  let batchIncumbent = incumbent;
  // The rows as the engine would have them with this pruner: the baseline, then each replayed row.
  const history: IterationRecord[] = [
    { iteration: 0, candidateId: '', score: scores[0]!, status: 'baseline', description: '', data: data.get(0) },
  ];
  let seen = 1; // rows of the batches before this one: what a candidate's pruner sees
  const estimates: { estimate: number; final: number }[] = [];
  const out = { candidates: 0, pruned: 0, kept: 0, wouldPrune: 0, trainingS: 0, savedS: 0 };
  for (let iteration = 1; iteration < statuses.length; iteration += 1) {
    // A batch decides against the incumbent at its start.
    if ((iteration - 1) % parallel === 0) {
      batchIncumbent = incumbent;
      seen = history.length;
    }
    const curve = data.get(iteration)?.reports ?? [];
    const trained = Number(data.get(iteration)?.metrics?.training_seconds ?? 0);
    const stop = curve.find(
      (report, i) =>
        pruner.check({
          iteration,
          step: report.step,
          value: report.value,
          reports: curve.slice(0, i + 1),
          direction: 'minimize',
          incumbent: batchIncumbent,
          history: history.slice(0, seen),
        }) !== undefined,
    );
    history.push({
      iteration,
      candidateId: '',
      score: scores[iteration]!,
      status: statuses[iteration] === 'keep' && stop === undefined ? 'kept' : 'reverted',
      description: '',
      data: {
        reports: stop === undefined ? curve : curve.filter((r) => r.step <= stop.step),
        ...(stop === undefined
          ? {}
          : { pruned: { step: stop.step, value: stop.value, reason: '', pruner: pruner.name } }),
      },
    });
    out.candidates += 1;
    out.trainingS += trained;
    const saved = stop === undefined ? 0 : trained * Math.max(0, 1 - stop.step / steps);
    if (stop !== undefined) {
      out.pruned += 1;
      out.savedS += saved;
      // The proposer's reference: the last keep before this row (not the batch's start, as the pruner's).
      const reference = { score: incumbentScore, data: { reports: incumbent ?? [] } };
      const estimate = prunedEstimate(stop, reference, 'minimize');
      if (estimate !== undefined) estimates.push({ estimate, final: scores[iteration]! });
    }
    seconds.push(trained);
    // A keep the pruner stops ends the replay's path to the best: it is never reached.
    costs.push(statuses[iteration] === 'keep' && stop !== undefined ? Infinity : trained - saved);
    const first = curve[0]?.step ?? steps;
    perfect.push(statuses[iteration] === 'keep' ? trained : (trained * Math.min(first, steps)) / steps);
    if (statuses[iteration] === 'keep') {
      out.kept += 1;
      if (stop !== undefined) out.wouldPrune += 1;
      incumbent = curve.length > 0 ? curve : incumbent;
      incumbentScore = scores[iteration]!;
    }
  }
  // The iteration where the run reached its best (its last keep at the lowest score).
  let best = 0;
  for (let i = 1; i < statuses.length; i += 1) if (statuses[i] === 'keep' && scores[i]! <= scores[best]!) best = i;
  let toBestBatchS = 0;
  for (let first = 1; first <= best; first += parallel)
    toBestBatchS += Math.max(...seconds.slice(first, first + parallel));
  // Packed on K cores: no less than the sum / K, nor than the longest single training.
  const packed = (c: number[]) => {
    const upToBest = c.slice(1, best + 1);
    return Math.max(upToBest.reduce((a, b) => a + b, 0) / parallel, ...upToBest);
  };
  return {
    ...out,
    toBestBatchS,
    toBestPackedS: packed(costs),
    toBestPerfectS: packed(perfect),
    bestIteration: best,
    estimates,
  };
}

import type { IntermediateReport, IterationRecord } from '../contracts/iteration-record.js';
import type { EventHub } from './event-hub.js';
import type { PrunedFact, Pruner } from '../contracts/pruner.js';
import { firstPruneVerdict } from '../policies/pruners.js';
import type { Direction } from '../contracts/types.js';

/** Options of the loop's pruning (`LoopOptions.prune`, issue 27). */
export interface PruneOptions {
  /** Checked in order on each report of a candidate's first evaluation; the first verdict prunes. */
  readonly pruners: readonly Pruner[];
  /** The last step of a full run, for the row's description (`pruned at step 800 of 3000`). @default unknown */
  readonly steps?: number;
}

/** The reporting side of one evaluation: what the harness gets and what the engine reads after it. */
export interface RunReporting {
  /** The run's signal: the loop's, plus this run's own when a pruner stops it. */
  readonly signal: AbortSignal;
  /** `RunContext.report`. */
  readonly report: (step: number, value: number) => void;
  /** The reports so far, in arrival order. */
  readonly reports: IntermediateReport[];
  /** Set once a pruner stopped the run. */
  pruned: PrunedFact | undefined;
  /** Detaches from the loop's signal (call when the run returned). */
  dispose(): void;
}

/** What {@link startReporting} needs. */
export interface ReportingInput {
  readonly iteration: number;
  readonly repeat: number;
  readonly loopSignal: AbortSignal;
  readonly hub: EventHub;
  readonly direction: Direction;
  /**
   * The pruning, when this evaluation may be pruned (a candidate's first run): the history so far and the incumbent's
   * row.
   */
  readonly prune?: {
    readonly options: PruneOptions;
    readonly history: readonly IterationRecord[];
    readonly incumbent: IterationRecord | undefined;
  };
}

/**
 * Starts collecting one evaluation's intermediate reports: each is kept, emitted as a `report`
 * event and, when `prune` is given, shown to the pruners; the first verdict aborts the run's own
 * signal (the harness kills the run as for a timeout) and emits `pruned`. Reports with a
 * non-finite step, or after the run was pruned or aborted, are ignored.
 */
export function startReporting(input: ReportingInput): RunReporting {
  const { iteration, repeat, loopSignal, hub, direction, prune } = input;
  const own = new AbortController();
  const onLoopAbort = () => own.abort(loopSignal.reason);
  if (loopSignal.aborted) own.abort(loopSignal.reason);
  else loopSignal.addEventListener('abort', onLoopAbort, { once: true });
  const incumbent = prune?.incumbent?.data?.reports;
  const state: RunReporting = {
    signal: own.signal,
    reports: [],
    pruned: undefined,
    report: (step, value) => {
      if (!Number.isFinite(step) || typeof value !== 'number' || own.signal.aborted) return;
      state.reports.push({ step, value });
      hub.emit({ type: 'report', iteration, repeat, step, value });
      if (!prune || prune.options.pruners.length === 0) return;
      const found = firstPruneVerdict(prune.options.pruners, {
        iteration,
        step,
        value,
        reports: state.reports,
        direction,
        incumbent,
        history: prune.history,
      });
      if (!found) return;
      const { reason } = found.verdict;
      state.pruned = {
        step,
        value: Number.isFinite(value) ? value : null,
        reason,
        pruner: found.pruner.name,
        ...(incumbent ? { incumbent: prune.incumbent!.iteration } : {}),
      };
      hub.emit({ type: 'pruned', iteration, step, value, reason, pruner: found.pruner.name });
      own.abort(new Error(`pruned at step ${step}: ${reason}`));
    },
    dispose: () => loopSignal.removeEventListener('abort', onLoopAbort),
  };
  return state;
}

/** The row's description clause for a pruned run: `pruned at step 800 of 3000: 3.41 vs incumbent 3.05`. */
export function prunedClause(fact: PrunedFact, steps: number | undefined): string {
  return `pruned at step ${fact.step}${steps !== undefined ? ` of ${steps}` : ''}: ${fact.reason}`;
}

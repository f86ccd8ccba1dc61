import type { Advice } from './advisor.js';
import type { IterationRecord } from './iteration-record.js';
import type { KeepDecision } from './keep-policy.js';
import type { LoopSummary } from './summary.js';
import type { SampleSummary } from '../stats/statistics.js';

/**
 * The typed events a loop emits, in order, for hosts to observe (UI, logs, agent tooling).
 *
 * - `baseline`: `samples` are the baseline's repeats (`baselineRepeats`, one by default) and
 *   `spread` their n, mean, standard deviation and MAD (the noise floor); `record.score` is the mean.
 * - `halted`: the row that halted the loop (a guard's `halt`, a failed restore, a tampered
 *   harness); `status` is its label. `stopped` follows after the stop sequence.
 * - `kept` / `reverted`: `decision.evidence` holds the statistics of a noise-aware decision;
 *   `samples` the candidate's scores (its first run plus any repeats); `seedOnly` is true when the
 *   proposal only changed a seed. `durationMs` (here and on `crash`): from the iteration's start
 *   until its candidate was decided, not counting the wait of the async schedule for the rows before
 *   it (the row itself is written then).
 * - `report`: a running evaluation reported an intermediate value (`RunContext.report`), live;
 *   `pruned`: a pruner stopped the iteration's run at that report (its `reverted` row follows).
 *   Both come while the run goes on, before the row is written (issue 27).
 */
export type LoopEvent =
  | { readonly type: 'iteration-started'; readonly iteration: number; readonly attempt: number }
  | {
      readonly type: 'baseline';
      readonly record: IterationRecord;
      readonly durationMs: number;
      readonly samples: readonly number[];
      readonly spread: SampleSummary;
    }
  | { readonly type: 'resumed'; readonly iteration: number; readonly best: number; readonly bestId: string }
  | {
      readonly type: 'kept';
      readonly record: IterationRecord;
      readonly decision: KeepDecision;
      readonly previousBest: number;
      readonly durationMs: number;
      readonly samples: readonly number[];
      readonly seedOnly: boolean;
    }
  | {
      readonly type: 'reverted';
      readonly record: IterationRecord;
      readonly decision?: KeepDecision;
      readonly durationMs: number;
      readonly samples: readonly number[];
      readonly seedOnly: boolean;
    }
  | {
      readonly type: 'crash';
      readonly record: IterationRecord;
      readonly logTail: string;
      readonly willRepair: boolean;
      readonly durationMs: number;
    }
  | { readonly type: 'halted'; readonly record: IterationRecord; readonly status: string; readonly note: string }
  | { readonly type: 'advice'; readonly iteration: number; readonly advice: Advice }
  | {
      readonly type: 'report';
      readonly iteration: number;
      readonly repeat: number;
      readonly step: number;
      readonly value: number;
    }
  | {
      readonly type: 'pruned';
      readonly iteration: number;
      readonly step: number;
      readonly value: number;
      readonly reason: string;
      readonly pruner: string;
    }
  | { readonly type: 'stopped'; readonly summary: LoopSummary };

/** The `type` strings of {@link LoopEvent}. */
export type LoopEventType = LoopEvent['type'];

/** The event of type `T`. */
export type LoopEventOf<T extends LoopEventType> = Extract<LoopEvent, { type: T }>;

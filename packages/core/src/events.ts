import type { Advice } from './advisor.js';
import type { IterationRecord } from './iteration-record.js';
import type { KeepDecision } from './keep-policy.js';
import type { LoopSummary } from './summary.js';
import type { StopDecision } from './stop-policy.js';

/** The typed events a loop emits, in order, for hosts to observe (UI, logs, agent tooling). */
export type LoopEvent =
  | { readonly type: 'iteration-started'; readonly iteration: number; readonly attempt: number }
  | { readonly type: 'baseline'; readonly record: IterationRecord; readonly durationMs: number }
  | { readonly type: 'resumed'; readonly iteration: number; readonly best: number; readonly bestId: string }
  | { readonly type: 'kept'; readonly record: IterationRecord; readonly decision: KeepDecision; readonly previousBest: number; readonly durationMs: number }
  | { readonly type: 'reverted'; readonly record: IterationRecord; readonly decision?: KeepDecision; readonly durationMs: number }
  | { readonly type: 'crash'; readonly record: IterationRecord; readonly logTail: string; readonly willRepair: boolean; readonly durationMs: number }
  | { readonly type: 'advice'; readonly iteration: number; readonly advice: Advice }
  | { readonly type: 'stopped'; readonly summary: LoopSummary };

/** The `type` strings of {@link LoopEvent}. */
export type LoopEventType = LoopEvent['type'];

/** The event of type `T`. */
export type LoopEventOf<T extends LoopEventType> = Extract<LoopEvent, { type: T }>;

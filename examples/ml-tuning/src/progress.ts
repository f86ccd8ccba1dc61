import type { LoopEvent } from '@loop/core';

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  /** Iterations after the baseline; 0 = until interrupted (then no time left is shown). */
  readonly iterations: number;
  /** Clock in ms (inject a fake one in tests). */
  readonly now: () => number;
  /** Candidates trained at once (the demo's `parallel`): time left counts batches. @default 1 */
  readonly parallel?: number;
  /**
   * The demo's schedule. `async`: rows arrive one at a time as trainings end (a pruned one early),
   * so time left is the mean time per row since the baseline times the rows to go. @default 'batch'
   */
  readonly schedule?: 'batch' | 'async';
}

/** `1m05s`, `42s`, `1h02m`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/**
 * The demo's live line (issue 17): after each finished run, `progress  iteration N of M | elapsed
 * 1m05s | ~3m20s left | best val_bpc 2.412345`. Time left = the mean time per finished batch so far
 * (K = `parallel` candidates trained at once; the baseline is a batch of its own) times the batches
 * still to go; a batch's rows arrive together, so every row of one batch shows the same estimate
 * (counting rows instead made it jump: 1m57s, 5m33s, 3m22s over the first three lines at K = 2).
 * On the async schedule no batch exists: time left = the mean time per row since the baseline's
 * (K trainings overlap, so that is about a training's time over K) times the rows to go.
 * Best = the lowest baseline or kept score (val_bpc: lower is better), or the resumed run's best.
 */
export function createProgress(options: ProgressOptions): { update: (event: LoopEvent) => string | undefined } {
  const started = options.now();
  let best: number | undefined;
  let done = 0; // finished iterations after the baseline
  let baselineDone = false;
  let resumedAt = 0;
  let candidatesFrom = started; // when the candidates began: the baseline's end, or the resume
  return {
    update: (event) => {
      if (event.type === 'resumed') {
        best = event.best;
        resumedAt = event.iteration;
        done = event.iteration;
        baselineDone = true;
        return undefined;
      }
      if (event.type === 'baseline') {
        baselineDone = true;
        candidatesFrom = options.now();
        if (event.record.score !== null) best = event.record.score;
      } else if (event.type === 'kept' || event.type === 'reverted' || event.type === 'crash') {
        done = Math.max(done, event.record.iteration);
        if (event.type === 'kept' && event.record.score !== null && (best === undefined || event.record.score < best))
          best = event.record.score;
      } else return undefined;
      const elapsed = options.now() - started;
      const k = Math.max(1, options.parallel ?? 1);
      const batches = Math.ceil((done - resumedAt) / k) + (baselineDone && resumedAt === 0 ? 1 : 0);
      const total = options.iterations > 0 ? ` of ${options.iterations}` : '';
      const toGo = Math.max(0, Math.ceil(options.iterations / k) - Math.ceil(done / k));
      const rows = done - resumedAt;
      const leftMs =
        options.schedule === 'async' && rows > 0
          ? ((options.now() - candidatesFrom) / rows) * Math.max(0, options.iterations - done)
          : (elapsed / batches) * toGo;
      const left = options.iterations > 0 && batches > 0 ? ` | ~${formatDuration(leftMs)} left` : '';
      return (
        `progress  iteration ${done}${total} | ` +
        `elapsed ${formatDuration(elapsed)}${left} | best ` +
        `val_bpc ${best === undefined ? '-' : best.toFixed(6)}`
      );
    },
  };
}

import type { Direction, LoopEvent, LoopSummary } from '@loop/core';
import { REJECTED_PREFIX, toAutoIterateStatus } from './results-tsv.js';

/** Scores print with 6 decimals so columns line up (results.tsv keeps full precision). */
function fmt(x: number | null): string {
  return x === null ? 'crash' : x.toFixed(6);
}

/**
 * The one line per iteration the CLI prints, or `undefined` for events that are not an
 * iteration's outcome. Format: `iter   3  keep     1.2345  (-0.0123)  a1b2c3d  lr 0.001 -> 0.002  [12.3 s]`.
 */
export function formatIterationLine(event: LoopEvent): string | undefined {
  switch (event.type) {
    case 'baseline':
    case 'kept':
    case 'reverted':
    case 'crash': {
      if (event.type === 'crash' && event.willRepair)
        return `iter ${String(event.record.iteration).padStart(3)}  crash    -> repairing: ${event.record.description}`;
      const r = event.record;
      const status = toAutoIterateStatus(r.status).padEnd(7);
      const change =
        event.type === 'kept'
          ? `${event.record.score! - event.previousBest >= 0 ? '+' : ''}` +
            `${fmt(event.record.score! - event.previousBest)}`
          : '';
      const seconds = `[${(event.durationMs / 1000).toFixed(1)} s]`;
      // A rejected row has no score but is no crash (results.tsv: `-` and `rejected: ...`).
      const score = r.score === null && r.status !== 'crash' ? '-' : fmt(r.score);
      const description =
        r.status === 'rejected' && !r.description.startsWith(REJECTED_PREFIX)
          ? `${REJECTED_PREFIX}${r.description}`
          : r.description;
      return (
        `iter ${String(r.iteration).padStart(3)}  ${status} ` +
        ` ${score.padStart(12)}  ${change.padStart(10)} ` +
        ` ${r.candidateId.slice(0, 7) || '-'}  ${description}  ${seconds}`
      );
    }
    case 'advice':
      return `         ${event.advice.kind}: ${event.advice.message}`;
    case 'resumed':
      return `resumed after iteration ${event.iteration}: best ${fmt(event.best)} at ${event.bestId.slice(0, 7)}`;
    default:
      return undefined;
  }
}

/** After a resume, how much of the run the time covers: ` (this session: 0 of 12 iterations)`. */
function resumedPart(summary: LoopSummary): string {
  return summary.iterationsThisRun < summary.iterations
    ? ` (this session: ${summary.iterationsThisRun} of ${summary.iterations} ` +
        `iteration${summary.iterations === 1 ? '' : 's'})`
    : '';
}

/**
 * The stop summary as a few lines: baseline, best, counts (after a resume, with how many
 * iterations this session ran, as the time is this session's), the top kept changes, the stop reason.
 */
export function formatSummary(summary: LoopSummary, metricName = 'score', top = 5): string {
  const arrow = (d: Direction) => (d === 'minimize' ? 'lower is better' : 'higher is better');
  const lines = [
    `stopped: ${summary.stop.reason} (${summary.stop.message})`,
    `${metricName}: baseline ${fmt(summary.baseline)} -> ` +
      `best ${fmt(summary.best)} (${arrow(summary.direction)}) ` +
      `at ${summary.bestId.slice(0, 7)}`,
    `iterations: ${summary.iterations}  keep ${summary.counts.kept}  ` +
      `discard ${summary.counts.reverted + summary.counts.rejected}  ` +
      `crash ${summary.counts.crash}  ` +
      `in ${(summary.durationMs / 1000).toFixed(1)} s${resumedPart(summary)}`,
  ];
  if (summary.kept.length > 0) {
    lines.push('top kept changes:');
    for (const k of summary.kept.slice(0, top))
      lines.push(
        `  ${fmt(k.improvement).padStart(10)}  iter ${k.iteration}  ${k.candidateId.slice(0, 7)}  ${k.description}`,
      );
  }
  return lines.join('\n');
}

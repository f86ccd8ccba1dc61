import type { AutoresearchMode } from './statuses.js';

/** Formats a score for results.tsv and the chat line: two decimals, `-` when there is none. */
export function formatScore(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(2);
}

/**
 * The ONE chat line per iteration (seed 002 Output): `iter <N> | <status> | <composite> (Δ <delta>) |
 * <one-line desc of the change>`. The description is collapsed to one line.
 *
 * @example formatIterationLine(3, 'kept', 7.5, 0.25, 'inline parseHeader') // 'iter 3 | kept | 7.50 (Δ 0.25) | inline
 * parseHeader'
 */
export function formatIterationLine(
  iter: number | string,
  status: string,
  composite: number | null,
  delta: number | null,
  description: string,
): string {
  return (
    `iter ${iter} | ${status} | ${formatScore(composite)} ` +
    `(Δ ${formatScore(delta)}) | ${description.replace(/\s+/g, ' ').trim()}`
  );
}

/** One kept change in the stop summary. */
export interface KeptChangeSummary {
  /** The iteration kept. */
  readonly iter: number;
  /** composite − best before it (positive). */
  readonly delta: number;
  /** What it changed. */
  readonly description: string;
}

/** What the stop summary reports (seed 002 on-stop step 2). */
export interface PassSummary {
  /** The pass. */
  readonly mode: AutoresearchMode;
  /** The baseline composite. */
  readonly startComposite: number;
  /** The final best composite (the baseline when nothing was kept). */
  readonly bestComposite: number;
  /** Counts: kept; reverted (including reverted-redtest); of which reverted-redtest; crash. */
  readonly counts: {
    readonly kept: number;
    readonly reverted: number;
    readonly revertedRedtest: number;
    readonly crash: number;
  };
  /** Every kept change this pass, largest delta first. */
  readonly topKept: readonly KeptChangeSummary[];
  /**
   * Which stop condition fired (`target-met`, `plateau`, `max-iterations`, `cost-brake`, `aborted`, `needs-human`,
   * `restore-failed`, `rubric-tampered`).
   */
  readonly stopReason: string;
  /** One line about the stop. */
  readonly stopMessage: string;
  /** The rubric fingerprint recorded at pass start. */
  readonly rubricSha256: string;
  /** Set when the pass halted loudly (`restore-failed`, `rubric-tampered`). */
  readonly halted?: string;
}

/**
 * The stop summary (seed 002 on-stop step 2): starting composite, final best, counts of kept vs
 * reverted vs crash, the top kept changes by delta (at most `top`, default 3), which stop condition
 * fired, and the rubric fingerprint.
 */
export function formatSummary(s: PassSummary, top = 3): string {
  const lines = [
    `${s.halted ? `HALTED: ${s.halted} — ` : ''}autoresearch ${s.mode} stopped: ${s.stopReason} (${s.stopMessage})`,
    `composite ${formatScore(s.startComposite)} -> best ${formatScore(s.bestComposite)}`,
    `kept ${s.counts.kept} | ` +
      (`reverted ${s.counts.reverted}` +
        `${s.counts.revertedRedtest ? ` (${s.counts.revertedRedtest} reverted-redtest)` : ''}` +
        ` `) +
      `| crash ${s.counts.crash}`,
  ];
  const kept = s.topKept.slice(0, top);
  if (kept.length > 0)
    lines.push(`top kept: ${kept.map((k) => `iter ${k.iter} +${formatScore(k.delta)} ${k.description}`).join('; ')}`);
  lines.push(`rubric sha256 ${s.rubricSha256}`);
  lines.push('validated — your call: nothing was committed');
  return lines.join('\n');
}

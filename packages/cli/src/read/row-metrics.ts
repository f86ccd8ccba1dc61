import { join } from 'node:path';
import { RUN_FILES } from '@loop/auto-iterate';
import { type CandidateData } from '@loop/core';
import { formatUsd, validCost } from '@loop/core/policies';
import { readRecordData } from '@loop/core/files';
import { readIterationTimes, type IterationTimes } from '../iteration-times.js';

/** A broken constraint of a row (core's `ConstraintVerdict` violation as the sidecar holds it). */
export interface RowViolation {
  /** The constraint as written, e.g. `rss_mb <= baseline * 1.05`. */
  readonly constraint: string;
  /** blocking (the row was not kept for it) or advisory (a warning). */
  readonly mode: 'blocking' | 'advisory';
  /** The value checked (the mean of the candidate's samples), `null` when the metric was missing. */
  readonly value: number | null;
  /** The bound it broke, `null` when the reference had no value. */
  readonly bound: number | null;
  /** By how much, in the metric's units (`> 0`), `null` when unknown. */
  readonly violation: number | null;
}

/** What {@link withRowMetrics} adds to a row. */
export interface RowMetrics {
  /** The row's named metrics (`.loop/iterations.jsonl`), absent when it has none. */
  readonly metrics?: Readonly<Record<string, number>>;
  /** The constraints the row broke, absent when none (or no constraints). */
  readonly violations?: readonly RowViolation[];
  /**
   * What the agent proposer reported producing the row's candidate cost (`data.cost`: US dollars,
   * tokens), absent when it reported nothing.
   */
  readonly cost?: { readonly usd?: number; readonly tokens?: number };
}

/**
 * Rows (`loop log` entries) with their named metrics and broken constraints (issue 28), for
 * `loop log`, the dashboard and the MCP server's `loop_rows`, from the workspace's sidecars: each
 * row's candidate record in `.loop/records.jsonl` (auto-iterate writes it for every host, the MCP
 * server's steps included) and `.loop/iterations.jsonl` (`loop run`: the scorer's dimensions too;
 * a line there describes a row only when its score matches, as a resumed run re-ran that
 * iteration). Missing sidecars leave the rows as they are. Never throws. A row's agent cost
 * (`data.cost`) comes along as `cost`.
 */
export async function withRowMetrics<E extends { readonly iteration: number; readonly score: number | null }>(
  dir: string,
  entries: readonly E[],
): Promise<(E & RowMetrics)[]> {
  const [times, records] = await Promise.all([
    readIterationTimes(dir).catch(() => new Map<number, IterationTimes>()),
    readRecordData(join(dir, RUN_FILES.records)).catch(() => new Map<number, CandidateData>()),
  ]);
  return entries.map((e) => {
    const t = times.get(e.iteration);
    const same = t !== undefined && (t.score === e.score || (t.score === null && e.score === null));
    const data = records.get(e.iteration) ?? (same ? t.data : undefined);
    const all = { ...(same ? t.metrics : {}), ...data?.metrics };
    const metrics = Object.keys(all).length > 0 ? { metrics: all } : {};
    const broken = (data?.constraints as { violations?: RowViolation[] } | undefined)?.violations ?? [];
    const cost = validCost(data?.cost);
    return { ...e, ...metrics, ...(broken.length > 0 ? { violations: broken } : {}), ...(cost ? { cost } : {}) };
  });
}

/** `rss_mb=84.5 ops_per_s=3000` (sorted by name, 6 significant digits), `''` for none. */
export function formatMetrics(metrics: Readonly<Record<string, number>> | undefined): string {
  if (!metrics) return '';
  return Object.keys(metrics)
    .sort()
    .map((k) => `${k}=${Number(metrics[k]!.toPrecision(6))}`)
    .join(' ');
}

/** `$0.0123, 1,234 tokens` (what {@link RowMetrics.cost} holds), `''` for none. */
export function formatCost(cost: RowMetrics['cost']): string {
  if (!cost) return '';
  return [
    cost.usd !== undefined ? formatUsd(cost.usd) : '',
    cost.tokens !== undefined ? `${cost.tokens.toLocaleString('en-US')} tokens` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

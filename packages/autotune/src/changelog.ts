import { readText } from './internal/read-text.js';
import { upsertSection } from './internal/sections.js';
import { writeTextAtomic } from '@loop/core/files';

/** The facts of one round's changelog entry. */
export interface ChangelogEntry {
  /** The round number. */
  round: number;
  /** ISO 8601 UTC. */
  at: string;
  /** `evaluated` or `stale`. */
  outcome: 'evaluated' | 'stale';
  /** The recommended action. */
  action: string;
  /** The worker's summary of its code changes. */
  summary: string;
  /** Each target with its outcome this round and its failed attempts so far. */
  targets: ReadonlyArray<{ id: string; outcome: 'fixed' | 'failed'; failedAttempts: number }>;
  /** Passing tasks, when evaluated. */
  passed?: number;
  /** All tasks, when evaluated. */
  total?: number;
  /** The decision's or the stale check's reason. */
  reason: string;
  /** Tasks parked this round. */
  parked: readonly string[];
}

/** The heading of round `n`'s entry: `## Round n`. */
export function changelogHeading(round: number): string {
  return `## Round ${round}`;
}

/** Formats one entry (markdown, heading `## Round N`). */
export function formatChangelogEntry(entry: ChangelogEntry): string {
  const lines = [
    changelogHeading(entry.round),
    '',
    `- at: ${entry.at}`,
    `- outcome: ${entry.outcome}`,
    `- action: ${entry.action}`,
    `- summary: ${entry.summary}`,
  ];
  if (entry.targets.length > 0) {
    lines.push(
      `- targets: ${entry.targets.map((t) => `${t.id} ${t.outcome} (failed ${t.failedAttempts}x)`).join(', ')}`,
    );
  }
  if (entry.passed !== undefined && entry.total !== undefined) lines.push(`- passing: ${entry.passed}/${entry.total}`);
  lines.push(`- reason: ${entry.reason}`);
  if (entry.parked.length > 0) lines.push(`- parked: ${entry.parked.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Writes round `entry.round`'s entry to the changelog: appended, or replacing the entry of the same
 * round (one entry per round, seed 004, even when a round interrupted before loop_state.json was
 * written runs again). One atomic write.
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path; the previous file is intact.
 */
export async function writeChangelogEntry(path: string, entry: ChangelogEntry): Promise<void> {
  const text = await readText(path, '# autotune changelog\n');
  await writeTextAtomic(path, upsertSection(text, changelogHeading(entry.round), formatChangelogEntry(entry)));
}

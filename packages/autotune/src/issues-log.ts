import { readText } from './internal/read-text.js';
import { upsertSection } from './internal/sections.js';
import { writeTextAtomic } from '@loop/core/files';

/** One parked task and why it is out of reach. */
export interface ParkedTask {
  /** The task id, as added to the exclusions file. */
  id: string;
  /** Why it is parked: failed attempts from the scoreboard, the last failure, the worker's rationale. */
  rationale: string;
}

/**
 * Writes the parked rationale of round `round` to issues.md (seed 004: "Update issues.md with the
 * parked rationale") under `## Parked in round N`, replacing that round's section if present.
 * One atomic write.
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path; the previous file is intact.
 */
export async function writeParkedIssues(
  path: string,
  round: number,
  reason: string,
  parked: readonly ParkedTask[],
): Promise<void> {
  const text = await readText(path, '# autotune issues\n');
  const section = [
    `## Parked in round ${round}`,
    '',
    `Stopped as exhausted: ${reason}.`,
    '',
    ...parked.map((p) => `- ${p.id}: ${p.rationale}`),
  ].join('\n');
  await writeTextAtomic(path, upsertSection(text, `## Parked in round ${round}`, section));
}

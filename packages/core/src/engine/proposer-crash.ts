import { LoopError, isLoopError } from '../contracts/errors.js';
import type { CandidateData } from '../contracts/iteration-record.js';
import type { Engine } from './engine.js';
import { addData, type Outcome } from './outcome.js';

/** The message of whatever was thrown. */
export const messageOf = (error: unknown) =>
  isLoopError(error) ? error.message : ((error as Error)?.message ?? String(error));

/**
 * The crash outcome of a proposer that threw (or aborted). A `LoopError` whose `details.data` is an
 * object adds it to the candidate's record (an agent call that failed still cost its tokens).
 */
export function proposerCrash(e: Engine, o: Outcome, error: unknown): Outcome {
  if (e.signal.aborted) return { ...o, aborted: true };
  const data = isLoopError(error) ? error.details.data : undefined;
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) addData(o, data as CandidateData);
  const message = messageOf(error);
  return Object.assign(o, {
    status: 'crash' as const,
    description: `proposer failed: ${message}`,
    error: message,
    proposerFailed: true,
  });
}

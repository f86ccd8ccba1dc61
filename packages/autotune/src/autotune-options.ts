import { isAbsolute } from 'node:path';
import { systemClock, type Clock } from '@loop/core';
import { type StepMachineHooks } from '@loop/core/step-machine';
import { z } from 'zod';
import type { Committer } from './committer.js';
import type { AutotunePaths } from './paths.js';
import type { RoundWorker } from './round-worker.js';
import type { SyncCheck } from './sync-check.js';

/** Options of `runControllerIteration` and `runController`. */
export interface AutotuneControllerOptions {
  /** The app repository root (absolute). The exclusions file is resolved against it. */
  dir: string;
  /** The private artifact workspace (absolute) holding projects/autotune/meta (seed 004). @default dir */
  artifactDir?: string;
  /** Overrides of the seed's file locations (see `AUTOTUNE_PATHS`). @default the seed's paths */
  paths?: Partial<AutotunePaths>;
  /** The round worker (seed 004 "/autotune"): code changes, then evaluation. */
  worker: RoundWorker;
  /**
   * Runs after the code commit and before the evaluation; a failure aborts the round as stale. @default noSyncCheck()
   */
  syncCheck?: SyncCheck;
  /** Commits code changes and end-of-round artifacts (seed 004 "Commit Policy"). @default noCommits() */
  committer?: Committer;
  /** Failed attempts at one target that force stop_exhausted (seed 004 "3+ times"). @default 3 */
  maxFailedAttempts?: number;
  /** The clock for timestamps in the files. @default systemClock */
  clock?: Clock;
  /** A workspace lock not refreshed for this long is stale, in ms. @default 30000 */
  lockStaleMs?: number;
  /**
   * Where the iteration's step machine keeps its cursor (`cursor.json`) and journal
   * (`journal.jsonl`), absolute. Not a control plane: loop_state.json decides; these only make an
   * interrupted iteration's writes and commits happen exactly once when it resumes.
   * @default `<artifactDir>/projects/autotune/run`
   */
  stepDir?: string;
  /**
   * Fault-injection hooks of the step machine, for tests (throwing from `beforeWrite` stops the iteration at that
   * write, as a kill would). @default none
   */
  stepHooks?: StepMachineHooks;
}

/** Options of `runController`: the iteration's options plus a bound on in-process iterations. */
export interface RunControllerOptions extends AutotuneControllerOptions {
  /** The most iterations to run in this process before returning with the loop still running. @default 100 */
  maxIterations?: number;
}

const absolute = (field: string) => z.string().refine((p) => isAbsolute(p), `${field} must be an absolute path`);
const contract = <T>(what: string, members: string[], named = true) =>
  z.custom<T>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      (!named || typeof (v as { name?: unknown }).name === 'string') &&
      members.every((m) => typeof (v as Record<string, unknown>)[m] === 'function'),
    `must be a ${what} with ${named ? 'a name and ' : ''}${members.join(', ')} ` +
      `function${members.length > 1 ? 's' : ''}`,
  );

const pathsSchema = z
  .object({
    loopState: z.string().min(1),
    scoreboard: z.string().min(1),
    changelog: z.string().min(1),
    issues: z.string().min(1),
    exclusions: z.string().min(1),
  })
  .partial();

/** zod schema of {@link AutotuneControllerOptions}; defaults are applied except the contract objects. */
export const autotuneControllerOptionsSchema = z.object({
  dir: absolute('dir'),
  artifactDir: absolute('artifactDir').optional(),
  paths: pathsSchema.default({}),
  worker: contract<RoundWorker>('RoundWorker', ['improve', 'evaluate']),
  syncCheck: contract<SyncCheck>('SyncCheck', ['verify']).optional(),
  committer: contract<Committer>('Committer', ['commit']).optional(),
  maxFailedAttempts: z.number().int().min(1).default(3),
  clock: contract<Clock>('Clock', ['now'], false).default(systemClock),
  lockStaleMs: z.number().int().positive().default(30_000),
  stepDir: absolute('stepDir').optional(),
  stepHooks: z
    .custom<StepMachineHooks>((v) => typeof v === 'object' && v !== null, 'must be an object of hook functions')
    .optional(),
});

/** zod schema of {@link RunControllerOptions}. */
export const runControllerOptionsSchema = autotuneControllerOptionsSchema.extend({
  maxIterations: z.number().int().min(1).default(100),
});

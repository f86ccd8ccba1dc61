import type { Clock } from '@loop/core';
import type { StepMachineHooks } from '@loop/core/step-machine';
import type { Committer } from '../committer.js';
import type { AutotunePaths } from '../paths.js';
import type { RoundWorker } from '../round-worker.js';
import type { SyncCheck } from '../sync-check.js';

/** What the iteration's steps need: the parsed controller options with every default applied. */
export interface IterationEnv {
  readonly dir: string;
  readonly paths: AutotunePaths;
  readonly stepDir: string;
  readonly worker: RoundWorker;
  readonly syncCheck: SyncCheck;
  readonly committer: Committer;
  readonly clock: Clock;
  readonly maxFailedAttempts: number;
  readonly lockStaleMs: number;
  readonly hooks?: StepMachineHooks | undefined;
}

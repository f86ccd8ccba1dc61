import { z } from 'zod';
import type { Advisor } from '../contracts/advisor.js';
import type { Artifact } from '../contracts/artifact.js';
import type { Guard } from '../contracts/guard.js';
import type { Harness } from '../contracts/harness.js';
import type { KeepPolicy } from '../contracts/keep-policy.js';
import { parallelOptionsSchema } from './parallel-options.js';
import type { Proposer } from '../contracts/proposer.js';
import type { Pruner } from '../contracts/pruner.js';
import type { ResultsLog } from '../contracts/results-log.js';
import type { RollbackStrategy } from '../contracts/rollback-strategy.js';
import type { Scorer } from '../contracts/scorer.js';
import type { SeedOnlyDetector } from '../artifacts/seed-only.js';
import type { StateStore } from '../contracts/state-store.js';
import type { StopPolicy } from '../contracts/stop-policy.js';
import type { Clock } from '../contracts/types.js';
import { parseGroupedOptions, type FlatOptionMoves } from './grouped-options.js';
import type { DeprecatedFlatLoopOptions, GroupedLoopOptions, LoopOptions } from './options.js';

/** Where each deprecated flat name of {@link LoopOptions} now lives. */
const LOOP_FLAT_OPTION_MOVES = {
  keepPolicy: ['keep', 'policy'],
  guards: ['keep', 'guards'],
  seedOnlyDetector: ['keep', 'seedOnlyDetector'],
  skipDuplicates: ['keep', 'skipDuplicates'],
  statePath: ['files', 'statePath'],
  lockPath: ['files', 'lockPath'],
  decisionsLogPath: ['files', 'decisionsLogPath'],
  baselineRepeats: ['run', 'baselineRepeats'],
  seedForRepeat: ['run', 'seedForRepeat'],
  seed: ['run', 'seed'],
  maxRepairAttempts: ['recovery', 'maxRepairAttempts'],
  maxProposerFailures: ['recovery', 'maxProposerFailures'],
} as const satisfies Record<keyof DeprecatedFlatLoopOptions, readonly [string, string]> & FlatOptionMoves;

const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'must be a function');
/** A zod check that `v` is an object with the named function members (an interface implementation). */
const contract = <T>(what: string, required: readonly string[], optional: readonly string[] = []) =>
  z.custom<T>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      required.every((k) => typeof (v as Record<string, unknown>)[k] === 'function') &&
      optional.every(
        (k) =>
          (v as Record<string, unknown>)[k] === undefined || typeof (v as Record<string, unknown>)[k] === 'function',
      ),
    `must be a ${what} (an object with ${[...required, ...optional.map((k) => `optional ${k}`)].join(', ')} functions)`,
  );

/**
 * zod schema of {@link LoopOptions} in the grouped shape: every field, its type and its range.
 * `createLoop` moves the deprecated flat names into their groups ({@link normalizeLoopOptions}),
 * then parses with it and throws `CONFIG_INVALID` naming the field (path `engine.<field>`).
 */
export const loopOptionsSchema = z
  .object({
    proposer: contract<Proposer>('Proposer', ['propose'], ['plan', 'repair']).optional(),
    harness: contract<Harness>('Harness', ['run'], ['fingerprint']),
    scorer: contract<Scorer>('Scorer', ['score']).refine(
      (s) => s.direction === 'minimize' || s.direction === 'maximize',
      'scorer.direction must be "minimize" or "maximize"',
    ),
    rollback: contract<RollbackStrategy>(
      'RollbackStrategy',
      ['checkpoint', 'keep', 'revert'],
      ['commit', 'restoreBest', 'recover', 'currentId'],
    ),
    artifact: contract<Artifact>('Artifact', ['inspect']).optional(),
    stop: contract<StopPolicy>('StopPolicy', ['check']).optional(),
    results: contract<ResultsLog>('ResultsLog', ['append', 'read'], ['amendLast']).optional(),
    stateStore: contract<StateStore>('StateStore', ['read', 'write']).optional(),
    files: z
      .object({
        statePath: z.string().min(1).optional(),
        lockPath: z.string().min(1).optional(),
        decisionsLogPath: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    run: z
      .object({
        baselineRepeats: z.number().int().min(1).optional(),
        seedForRepeat: fn.optional(),
        seed: z.number().int().optional(),
      })
      .strict()
      .optional(),
    keep: z
      .object({
        policy: contract<KeepPolicy>('KeepPolicy', ['decide']).optional(),
        guards: z.array(contract<Guard>('Guard', [], ['beforeEdit', 'beforeRun', 'afterScore'])).optional(),
        seedOnlyDetector: contract<SeedOnlyDetector>('SeedOnlyDetector', ['isSeedOnlyChange'], ['capture']).optional(),
        skipDuplicates: z.boolean().optional(),
      })
      .strict()
      .optional(),
    recovery: z
      .object({
        maxRepairAttempts: z.number().int().min(0).optional(),
        maxProposerFailures: z.number().int().min(1).optional(),
      })
      .strict()
      .optional(),
    cost: fn.optional(),
    prune: z
      .object({
        pruners: z.array(contract<Pruner>('Pruner', ['check'])),
        steps: z.number().positive().optional(),
      })
      .strict()
      .optional(),
    statusNames: z
      .object({ restoreFailed: z.string().min(1).optional(), harnessTampered: z.string().min(1).optional() })
      .strict()
      .optional(),
    advisors: z.array(contract<Advisor>('Advisor', ['advise'])).optional(),
    clock: contract<Clock>('Clock', ['now']).optional(),
    signal: z
      .custom<AbortSignal>(
        (v) => typeof v === 'object' && v !== null && typeof (v as AbortSignal).aborted === 'boolean',
        'must be an AbortSignal',
      )
      .optional(),
    parallel: parallelOptionsSchema.optional(),
    onStop: fn.optional(),
  })
  .strict()
  .refine((o) => !(o.files?.statePath && o.stateStore), {
    message: 'give files.statePath or stateStore, not both',
    path: ['stateStore'],
  });

/**
 * Validates `input` and returns it in the grouped shape: the deprecated flat names moved into their
 * groups, `parallel` with its defaults. The one place flat names are read; the engine reads only
 * the grouped shape.
 *
 * @throws {ConfigError} `CONFIG_INVALID` naming the field (`engine.<field>`; a flat name when it was
 *   given flat), or both names when a flat name and its grouped place are given at once.
 */
export function normalizeLoopOptions(input: LoopOptions): GroupedLoopOptions {
  const { parsed, grouped } = parseGroupedOptions(loopOptionsSchema, input, LOOP_FLAT_OPTION_MOVES, 'engine');
  return { ...(grouped as GroupedLoopOptions), ...(parsed.parallel ? { parallel: parsed.parallel } : {}) };
}

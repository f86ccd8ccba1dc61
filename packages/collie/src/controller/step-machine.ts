import { LoopError } from '@loop/core';
import { createStepMachine, type StepContext, type StepMachineHooks } from '@loop/core/step-machine';
import { z } from 'zod';
import type { AutoiterStepOutcome } from './step-outcome.js';

/** Options of {@link createCollieStepMachine}. */
export interface CollieStepMachineOptions {
  /** The machine's directory (`cursor.json`, `journal.jsonl`): `ColliePaths.steps`. */
  readonly dir: string;
  /** The `LOCK_HELD` message's holder. */
  readonly lockHolder: string;
  /** A lock not refreshed for this long is stale, in ms. */
  readonly lockStaleMs: number;
  /** One resumable unit of seed 000 §3.5 (routes by the run's files, then runs one branch or stage). */
  readonly unit: () => Promise<AutoiterStepOutcome>;
  /** Fault-injection hooks (core `StepMachineHooks`). @default none */
  readonly hooks?: StepMachineHooks;
}

/** collie's step machine: `step()` runs one unit, `current()` is the step context effects go through. */
export interface CollieStepMachine {
  /** Runs one unit as one run of the machine, or finishes the unit a killed process left in progress. */
  readonly step: () => Promise<AutoiterStepOutcome>;
  /**
   * The context of the unit in progress (its `effect` journals a side effect exactly once).
   *
   * @throws {LoopError} `STATE_CORRUPT` outside a unit (a stage helper called outside `step()`).
   */
  readonly current: () => StepContext<unknown>;
}

const dataSchema = z.object({ outcome: z.unknown().nullable() });

/**
 * Runs collie's `step()` on core's step machine (issue 11: one engine). One `step()` is one run of
 * a one-step machine: the persisted cursor (`<dir>/cursor.json`) says a unit is in progress, the
 * fsynced journal (`<dir>/journal.jsonl`) records each side effect (escalate, notify) the unit ran.
 * A process killed inside a unit leaves the cursor at that unit, so the next `step()` (any process)
 * continues that machine run: the unit routes again by the run's files (state.json's `stage` is the
 * stage cursor seed 000's files carry), effects already done are not run again, an interrupted one
 * runs again. The unit's outcome is the cursor's data when it finishes.
 */
export function createCollieStepMachine(options: CollieStepMachineOptions): CollieStepMachine {
  let current: StepContext<unknown> | undefined;
  const machine = createStepMachine<z.output<typeof dataSchema>>({
    name: 'collie',
    dir: options.dir,
    start: 'unit',
    dataSchema,
    lockHolder: options.lockHolder,
    lockStaleMs: options.lockStaleMs,
    ...(options.hooks ? { hooks: options.hooks } : {}),
    steps: {
      unit: async (ctx) => {
        current = ctx as StepContext<unknown>;
        try {
          return { finish: true, data: { outcome: await options.unit() } };
        } finally {
          current = undefined;
        }
      },
    },
  });
  return {
    step: async () => (await machine.run(() => ({ outcome: null }))).data.outcome as AutoiterStepOutcome,
    current: () => {
      if (current === undefined)
        throw new LoopError(
          'STATE_CORRUPT',
          '[loop] [collie] a side effect was run outside step(); stage helpers run only inside a step',
          { details: { path: options.dir } },
        );
      return current;
    },
  };
}

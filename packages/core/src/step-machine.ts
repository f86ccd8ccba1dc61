/**
 * @loop/core/step-machine: a durable step machine (a journal and a cursor written at named
 * points) that resumes a multi-step run after a crash at any point. For hosts whose one iteration is
 * several steps (autotune, collie).
 *
 * @packageDocumentation
 * @module @loop/core/step-machine
 */
export { createStepMachine } from './step-machine/step-machine.js';
export type {
  StepMachine,
  StepMachineOptions,
  StepMachineHooks,
  StepContext,
  StepFunction,
  StepTransition,
  StepRunResult,
  StepWritePoint,
  EffectOptions,
} from './step-machine/step-machine.js';
export { stepCursorSchema, readStepCursor } from './step-machine/cursor.js';
export type { StepCursor } from './step-machine/cursor.js';
export { journalRecordSchema, readJournal } from './step-machine/journal.js';
export type { JournalRecord } from './step-machine/journal.js';

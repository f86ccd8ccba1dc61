import { join } from 'node:path';
import type { z } from 'zod';
import { LoopError } from '../contracts/errors.js';
import { acquireLock } from '../files/lock.js';
import { writeTextAtomic } from '../files/state-file.js';
import type { MaybePromise } from '../contracts/types.js';
import { readStepCursor, writeStepCursor, type StepCursor } from './cursor.js';
import { effectKey, readJournal, type JournalRecord } from './journal.js';
import { createStepEffect, toJson, type EffectOptions } from './step-effect.js';

/** What a step returns: the next step, or the end of the run; `data` replaces the carried data (omitted: unchanged). */
export type StepTransition<D> =
  { readonly next: string; readonly data?: D } | { readonly finish: true; readonly data?: D };

export type { EffectOptions } from './step-effect.js';

/** What a step sees. */
export interface StepContext<D> {
  /** This step's name. */
  readonly step: string;
  /** The run, from 1. */
  readonly run: number;
  /** The visit within the run (the cursor's transition count when the step started). */
  readonly visit: number;
  /** The carried data as the previous transition left it. */
  readonly data: D;
  /** True when an earlier process started this visit and was stopped before it finished. */
  readonly resumed: boolean;
  /**
   * Runs a side effect exactly once per visit across kills and restarts. `intent` is journaled
   * (fsynced) before `fn` runs and `done` with its JSON result after; an effect already `done` is not
   * run again, its recorded result is returned (the live run returns the same JSON round trip, so
   * both paths see equal values). An `intent` without `done` is re-run when `idempotent`, resolved by
   * `reconcile` when given, and otherwise refused. A throw from `fn` leaves the intent open.
   *
   * @throws {LoopError} `EFFECT_IN_DOUBT` for an interrupted effect that is neither idempotent nor
   *   reconcilable; `CONFIG_INVALID` when `name` is used twice in one visit; `STATE_WRITE_FAILED`
   *   when the journal cannot be appended; whatever `fn` throws.
   */
  readonly effect: <R>(name: string, fn: () => MaybePromise<R>, options?: EffectOptions<R>) => Promise<R>;
}

/**
 * One step: everything outside `ctx.effect` must be deterministic given `ctx.data` and the effects' results, because a
 * resumed visit runs the step again from its start.
 */
export type StepFunction<D> = (ctx: StepContext<D>) => MaybePromise<StepTransition<D>>;

/** A durable write of the machine, passed to {@link StepMachineHooks.beforeWrite}. */
export interface StepWritePoint {
  /**
   * `reset`: the journal is emptied for a new run; `cursor`: the cursor is written; `intent` / `done`: a journal line;
   * `effect`: the effect is about to run (its intent is durable).
   */
  readonly kind: 'reset' | 'cursor' | 'intent' | 'effect' | 'done';
  /** The run the write belongs to. */
  readonly run: number;
  /** The step, for every kind but `reset`; for `cursor`, the step being left (null when a run starts). */
  readonly step: string | null;
  /** The effect, for `intent`, `effect` and `done`. */
  readonly effect?: string;
}

/** Test hooks of a step machine. */
export interface StepMachineHooks {
  /**
   * Called before every durable write (and before each effect runs): throwing from it stops the machine exactly there,
   * as a kill would.
   */
  readonly beforeWrite?: (point: StepWritePoint) => MaybePromise<void>;
}

/** Options of {@link createStepMachine}. */
export interface StepMachineOptions<D> {
  /** The machine's name, in errors and in the cursor. */
  readonly name: string;
  /** The directory holding `cursor.json` and `journal.jsonl` (absolute); created on first write. */
  readonly dir: string;
  /** The step a new run starts at. */
  readonly start: string;
  /** The steps by name; transitions name them. */
  readonly steps: Readonly<Record<string, StepFunction<D>>>;
  /** Validates the cursor's data on load (a mismatch is `STATE_CORRUPT`). @default no validation */
  readonly dataSchema?: z.ZodType<D>;
  /** The file the lock held while stepping protects (`<lockPath>.lock`). @default `<dir>/cursor.json` */
  readonly lockPath?: string;
  /** What holds the lock, for the `LOCK_HELD` message. @default `another <name> is stepping` */
  readonly lockHolder?: string;
  /** A lock not refreshed for this long is stale, in ms. @default 30000 */
  readonly lockStaleMs?: number;
  /** Fault-injection hooks for tests. @default none */
  readonly hooks?: StepMachineHooks;
}

/** The result of {@link StepMachine.run}. */
export interface StepRunResult<D> {
  /** The data the last transition left. */
  readonly data: D;
  /** The run that finished. */
  readonly run: number;
  /** True when the call continued a run an earlier process started. */
  readonly resumed: boolean;
  /** The steps run by this call, in order (a resumed visit included). */
  readonly visited: readonly string[];
}

/** A durable step machine (see {@link createStepMachine}). */
export interface StepMachine<D> {
  /** The machine's name. */
  readonly name: string;
  /** `<dir>/cursor.json`. */
  readonly cursorPath: string;
  /** `<dir>/journal.jsonl`. */
  readonly journalPath: string;
  /**
   * Continues the unfinished run from its cursor, or starts a new run at `start` with
   * `initial()` as its data (the journal is emptied first), and steps until a step finishes.
   * The lock is held throughout.
   *
   * @throws {LoopError} `LOCK_HELD` when another process is stepping; `STATE_CORRUPT` for a bad
   *   cursor or journal, or a cursor naming an unknown step; `CONFIG_INVALID` for a transition to
   * an unknown step or data (initial or from a step) that fails `dataSchema`; `EFFECT_IN_DOUBT`; `STATE_WRITE_FAILED`;
   * whatever a step throws (the cursor
   *   stays at that step, so the next call resumes it).
   */
  readonly run: (initial: () => MaybePromise<D>) => Promise<StepRunResult<D>>;
  /** Reads the cursor without locking. @returns `undefined` before the first run. */
  readonly cursor: () => Promise<StepCursor<D> | undefined>;
}

/** The data a step hands on, as JSON, checked against the schema before it reaches the cursor. */
function checkData<D>(where: string, schema: z.ZodType<D> | undefined, value: D, from: string): D {
  const json = toJson(value);
  if (schema === undefined) return json;
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = ['data', ...(issue?.path.map(String) ?? [])].join('.');
  throw new LoopError(
    'CONFIG_INVALID',
    `${where} ${from} produced data that does not match dataSchema: ` +
      `field ${field}: ${issue?.message ?? 'invalid'} (the cursor was not ` +
      `written)`,
    { cause: result.error, details: { field } },
  );
}

/**
 * Creates a durable step machine: named steps with explicit transitions, a persisted cursor
 * (`cursor.json`, written atomically at every transition) and a journal (`journal.jsonl`,
 * append-only, fsynced) so each side effect runs exactly once across kill -9 and restarts.
 * Multi-stage pipelines (autotune's iteration, collie's stages) are configurations of it.
 *
 * @throws {LoopError} `CONFIG_INVALID` when `start` is not one of `steps`.
 */
export function createStepMachine<D>(options: StepMachineOptions<D>): StepMachine<D> {
  const { name, steps } = options;
  const cursorPath = join(options.dir, 'cursor.json');
  const journalPath = join(options.dir, 'journal.jsonl');
  const hook = options.hooks?.beforeWrite ?? (() => {});
  const where = `[loop] [step-machine] [${name}]`;
  if (!Object.hasOwn(steps, options.start)) {
    throw new LoopError(
      'CONFIG_INVALID',
      `${where} start step "${options.start}" is not one of the steps (${Object.keys(steps).join(', ')})`,
      { details: { start: options.start } },
    );
  }
  const readCursor = () => readStepCursor<D>(cursorPath, name, options.dataSchema);

  const runSteps = async (initial: () => MaybePromise<D>): Promise<StepRunResult<D>> => {
    let cursor = await readCursor();
    const resumed = cursor !== undefined && cursor.step !== null;
    if (cursor === undefined || cursor.step === null) {
      const run = (cursor?.run ?? 0) + 1;
      const data = checkData(where, options.dataSchema, await initial(), 'initial()');
      await hook({ kind: 'reset', run, step: null });
      await writeTextAtomic(journalPath, '');
      await hook({ kind: 'cursor', run, step: null });
      cursor = { version: 1, machine: name, run, visit: 0, step: options.start, data };
      await writeStepCursor(cursorPath, cursor);
    }
    const journal = new Map<string, JournalRecord>();
    for (const record of await readJournal(journalPath)) {
      if (record.run !== cursor.run) continue;
      const key = effectKey(record);
      if (record.t === 'done' || !journal.has(key)) journal.set(key, record);
    }
    const visited: string[] = [];
    let first = resumed;
    for (;;) {
      const current: StepCursor<D> = cursor;
      const step = current.step as string;
      const fn = steps[step];
      if (fn === undefined || !Object.hasOwn(steps, step)) {
        throw new LoopError(
          'STATE_CORRUPT',
          `${where} cursor ${cursorPath} names step "${step}", which this machine ` +
            `does not have (${Object.keys(steps).join(', ')})`,
          { details: { path: cursorPath, field: 'step' } },
        );
      }
      visited.push(step);
      const ctx: StepContext<D> = {
        step,
        run: current.run,
        visit: current.visit,
        data: current.data,
        resumed: first,
        effect: createStepEffect({ where, journalPath, journal, hook, run: current.run, visit: current.visit, step }),
      };
      const transition = await fn(ctx);
      first = false;
      const data =
        'data' in transition && transition.data !== undefined
          ? checkData(where, options.dataSchema, transition.data, `step "${step}"`)
          : current.data;
      const next = 'next' in transition ? transition.next : null;
      if (next !== null && !Object.hasOwn(steps, next)) {
        throw new LoopError(
          'CONFIG_INVALID',
          `${where} step "${step}" moves to "${next}", which is not a step (${Object.keys(steps).join(', ')})`,
          { details: { step, next } },
        );
      }
      await hook({ kind: 'cursor', run: current.run, step });
      cursor = { ...current, visit: current.visit + 1, step: next, data };
      await writeStepCursor(cursorPath, cursor);
      if (next === null) return { data, run: current.run, resumed, visited };
    }
  };

  return {
    name,
    cursorPath,
    journalPath,
    cursor: readCursor,
    run: async (initial) => {
      const lock = await acquireLock({
        path: options.lockPath ?? cursorPath,
        staleMs: options.lockStaleMs,
        holder: options.lockHolder ?? `another ${name} is stepping`,
      });
      try {
        return await runSteps(initial);
      } finally {
        await lock.release();
      }
    },
  };
}

import { LoopError } from '../contracts/errors.js';
import type { MaybePromise } from '../contracts/types.js';
import { appendJournal, effectKey, type JournalRecord } from './journal.js';
import type { StepWritePoint } from './step-machine.js';

/** How to treat an effect found started but not done after a kill (see {@link StepContext.effect}). */
export interface EffectOptions<R> {
  /**
   * Running it again is harmless (a write of the same bytes, a read): an interrupted attempt is simply re-run. @default
   * false
   */
  readonly idempotent?: boolean;
  /**
   * Checks the world after an interrupted attempt ("is the commit already there?"): `{ done: true,
   * result }` records it done without running it again, `{ done: false }` runs it. Takes precedence
   * over `idempotent`.
   */
  readonly reconcile?: () => MaybePromise<
    { readonly done: true; readonly result: NoInfer<R> } | { readonly done: false }
  >;
}

/** Runs one named effect of a visit exactly once (the shape of `StepContext.effect`). */
export type StepEffect = <R>(name: string, fn: () => MaybePromise<R>, options?: EffectOptions<R>) => Promise<R>;

/** What the effects of one visit share: the machine's journal and hooks, and the visit's identity. */
export interface StepEffectScope {
  /** The `[loop] [step-machine] [<name>]` prefix of errors. */
  readonly where: string;
  /** `<dir>/journal.jsonl`. */
  readonly journalPath: string;
  /** The run's journal records by effect key (updated as effects are journaled). */
  readonly journal: Map<string, JournalRecord>;
  /** The machine's `beforeWrite` hook. */
  readonly hook: (point: StepWritePoint) => MaybePromise<void>;
  /** The run, the visit and the step of the effects. */
  readonly run: number;
  readonly visit: number;
  readonly step: string;
}

/** A JSON round trip of `value` (`undefined` stays `undefined`). */
export const toJson = <R>(value: R): R => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as R));

/**
 * Creates the `ctx.effect` of one visit: journals `intent` before and `done` after each effect, returns a recorded
 * result without running the effect again, and resolves an interrupted one by `reconcile` or `idempotent`.
 *
 * @throws {LoopError} (from the returned function) `EFFECT_IN_DOUBT`, `CONFIG_INVALID` for a name used twice in the
 *   visit, `STATE_WRITE_FAILED`; whatever the effect throws.
 */
export function createStepEffect(scope: StepEffectScope): StepEffect {
  const { where, journalPath, journal, hook, step } = scope;
  const used = new Set<string>();
  return async <R>(effect: string, body: () => MaybePromise<R>, opts: EffectOptions<R> = {}): Promise<R> => {
    if (used.has(effect))
      throw new LoopError(
        'CONFIG_INVALID',
        `${where} step "${step}" runs effect "${effect}" twice in one visit; give each effect its own name`,
        { details: { step, effect } },
      );
    used.add(effect);
    const id = { run: scope.run, visit: scope.visit, step, effect };
    const known = journal.get(effectKey(id));
    if (known?.t === 'done') return known.result as R;
    const finish = async (result: R): Promise<R> => {
      const value = toJson(result);
      await hook({ kind: 'done', run: id.run, step, effect });
      const record: JournalRecord = value === undefined ? { t: 'done', ...id } : { t: 'done', ...id, result: value };
      await appendJournal(journalPath, record);
      journal.set(effectKey(id), record);
      return value;
    };
    if (known?.t === 'intent') {
      if (opts.reconcile !== undefined) {
        const check = await opts.reconcile();
        if (check.done) return finish(check.result);
      } else if (opts.idempotent !== true) {
        throw new LoopError(
          'EFFECT_IN_DOUBT',
          `${where} effect "${effect}" of step "${step}" (run ${id.run}, ` +
            `visit ${id.visit}) was started before the last stop and never recorded ` +
            `as done, and it is neither idempotent nor reconcilable; check whether it ` +
            `happened, then append its done line to ${journalPath} (or delete its ` +
            `intent line to run it again)`,
          { details: { ...id, journal: journalPath } },
        );
      }
    } else {
      await hook({ kind: 'intent', run: id.run, step, effect });
      const record: JournalRecord = { t: 'intent', ...id };
      await appendJournal(journalPath, record);
      journal.set(effectKey(id), record);
    }
    await hook({ kind: 'effect', run: id.run, step, effect });
    return finish(await body());
  };
}

import { LoopError, isLoopError } from '../contracts/errors.js';
import { acquireLock, type WorkspaceLock } from '../files/lock.js';
import type { EditPlan } from '../contracts/proposer.js';
import type { StopDecision } from '../contracts/stop-policy.js';
import type { LoopSummary } from '../contracts/summary.js';
import { runBaseline } from './baseline.js';
import { beginCandidate, isPending } from './candidate.js';
import { finishCandidate } from './finish-candidate.js';
import { proposerCrash } from './proposer-crash.js';
import { addData, type Outcome, type PendingCandidate } from './outcome.js';
import type { Engine } from './engine.js';
import { checkAgainstState, resumeFrom } from './resume.js';
import { newSessionMemory } from './session-memory.js';
import { createAsyncPool } from './async-step.js';
import { stepBatch } from './batch-step.js';
import { inPlace, revertInPlace, settleInPlace, stepInPlace, type StepEnd } from './step.js';
import { advise, haltStop, stopSequence } from './stop-sequence.js';
import { treeDigest } from './tree-digest.js';
import type { StepOutcome, Trial, TrialEdit } from './trial.js';

/** Errors of a misused call: they touch nothing, so the loop goes on. */
const MISUSE = ['TRIAL_OPEN', 'TRIAL_UNKNOWN', 'LOOP_STOPPED', 'EDIT_OUTSIDE_ARTIFACT'] as const;
const isMisuse = (error: unknown) => MISUSE.some((code) => isLoopError(error, code));

/**
 * One loop's life: start (lock, resume or baseline), steps driven by `run()`, `step()` or a host's
 * `ask()` / `tell()`, and the stop sequence. Every entry point goes through the same guarded path,
 * so a host gets every guarantee `run()` gives. Internal to the engine.
 */
export function createSession(e: Engine) {
  let m = newSessionMemory(e.clock.now());
  /** Errors of a start that recorded nothing: the loop may be started again (a lock held by another run). */
  const retryable = new WeakSet<object>();
  const pool = e.options.parallel?.schedule === 'async' ? createAsyncPool(e) : undefined;
  const step = pool ? pool.step : e.options.parallel ? stepBatch : stepInPlace;
  let lock: WorkspaceLock | undefined;
  let fingerprint: string | undefined;
  let started = false;
  let closed = false;
  let busy = false;
  let summary: LoopSummary | undefined;
  let open: { trial: Trial; pending: PendingCandidate; slot: ReturnType<typeof inPlace> } | undefined;

  const close = async () => {
    if (closed) return;
    closed = true;
    await pool?.close().catch(() => undefined);
    e.hub.close();
    await lock?.release();
    lock = undefined;
  };
  const stoppedError = () =>
    new LoopError(
      'LOOP_STOPPED',
      `[loop] [engine] the loop has stopped (${summary?.stop.reason ?? 'closed'}); create a new loop to resume the run`,
      { details: summary ? { summary } : {} },
    );

  /** Runs `fn` as the only call in flight; an unexpected error writes the `failed` state and closes the loop. */
  const guarded = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (busy)
      throw new LoopError(
        'TRIAL_OPEN',
        '[loop] [engine] another call on this loop is in progress; await it (abort it with the signal)',
      );
    busy = true;
    try {
      return await fn();
    } catch (error) {
      if (isMisuse(error) || closed || retryable.has(error as object)) throw error;
      if (m.history.length > 0 && error !== m.fatal && !isLoopError(error, 'STATE_WRITE_FAILED')) {
        const code = isLoopError(error) ? error.code : 'UNEXPECTED';
        await e.writeState(m, 'failed', { error: { code, message: (error as Error)?.message } }).catch(() => {});
      }
      await close();
      throw error;
    } finally {
      busy = false;
    }
  };

  /** The stop sequence, then the lock is released; a fatal halt throws with `details.summary`. */
  const finish = async (stop: StopDecision): Promise<LoopSummary> => {
    await pool?.close(); // candidates in flight are abandoned before the workspace is restored
    summary = await stopSequence(e, m, stop);
    await close();
    if (m.fatal) {
      m.fatal.details.summary = summary;
      throw m.fatal;
    }
    return summary;
  };

  /** Takes the lock, then resumes from the rows or measures the baseline; a stop policy may end it at once. */
  const start = async () => {
    if (closed) throw stoppedError();
    if (started) return;
    started = true;
    try {
      if (e.options.files?.lockPath) lock = await acquireLock({ path: e.options.files.lockPath });
      fingerprint = await e.options.harness.fingerprint?.();
      const rows = await e.results.read();
      const saved = await e.store?.read();
      checkAgainstState(e, rows, saved);
      if (rows.length > 0) await resumeFrom(e, m, rows, saved);
      else await runBaseline(e, m, fingerprint);
    } catch (error) {
      if (m.history.length === 0 && typeof error === 'object' && error !== null) {
        // Nothing was recorded: release the lock and let a later call start afresh.
        started = false;
        await lock?.release();
        lock = undefined;
        m = newSessionMemory(e.clock.now());
        retryable.add(error);
      }
      throw error;
    }
    if (e.options.artifact && e.options.keep?.skipDuplicates) {
      // A resumed session knows the trees its earlier sessions evaluated from their records (`data.tree`).
      for (const row of m.history)
        if (typeof row.data?.tree === 'string' && !m.evaluatedTrees.has(row.data.tree))
          m.evaluatedTrees.set(row.data.tree, row.iteration);
      // The tree in place is the incumbent's: its record says which, else (rows from before data.tree) it is read.
      const incumbent = m.counters.incumbent;
      const current = incumbent?.data?.tree ?? treeDigest(await e.options.artifact.inspect());
      m.evaluatedTrees.set(current, incumbent?.iteration ?? 0);
    }
    const stop = e.stopPolicy.check(e.loopState(m));
    if (stop) await finish(stop);
  };

  /** After a step: the halts, the proposer-failing stop, the stop policies, then advice for the next proposal. */
  const after = async (end: StepEnd): Promise<LoopSummary | undefined> => {
    if (end === 'aborted')
      return finish({ reason: 'aborted', message: 'stopped by abort signal; the in-flight candidate was rolled back' });
    if (end === 'halted') return finish(haltStop(m));
    if (m.proposerFailures >= e.maxProposerFailures) {
      return finish({
        reason: 'proposer-failing',
        message: `the proposer failed ${m.proposerFailures} times in a row`,
      });
    }
    const stop = e.stopPolicy.check(e.loopState(m));
    if (stop) return finish(stop);
    // Advice is for the next proposal, so it is asked for only once one is coming.
    advise(e, m);
    return undefined;
  };
  const outcome = async (from: number, end: StepEnd): Promise<StepOutcome> => {
    const records = m.history.slice(from);
    const stopped = await after(end);
    return { records, ...(stopped ? { stopped } : {}) };
  };
  const ready = async () => {
    await start();
    if (summary || closed) throw stoppedError();
    if (open)
      throw new LoopError(
        'TRIAL_OPEN',
        `[loop] [engine] trial ${open.trial.iteration} is open: tell() it, or stop() the loop, first`,
      );
  };

  const stepOnce = async (): Promise<StepOutcome> => {
    e.proposer();
    const from = m.history.length;
    return outcome(from, await step(e, m, fingerprint));
  };

  return {
    run: () =>
      guarded(async () => {
        if (summary || closed) throw stoppedError();
        if (open)
          throw new LoopError(
            'TRIAL_OPEN',
            `[loop] [engine] trial ${open.trial.iteration} is open: tell() it, or stop() the loop, before run()`,
          );
        e.proposer();
        await start();
        while (!summary) await stepOnce();
        return summary;
      }),
    step: () =>
      guarded(async () => {
        await ready();
        return stepOnce();
      }),
    ask: (options: { plan?: EditPlan } = {}) =>
      guarded(async (): Promise<Trial> => {
        await ready();
        // The async schedule's candidates in flight are recorded first, in order, and none is started:
        // the host's edit is made in place after them and takes the next iteration (row n is iteration n).
        while (pool?.inFlight()) {
          if ((await outcome(m.history.length, await pool.drain(m, fingerprint))).stopped) throw stoppedError();
        }
        for (;;) {
          const iteration = m.history.length;
          const slot = inPlace(e, iteration, fingerprint);
          let begun: Outcome | PendingCandidate;
          try {
            begun = await beginCandidate(e, m, iteration, 0, slot.open, async () => options.plan);
          } catch (error) {
            return slot.unwind(error);
          }
          if (isPending(begun)) {
            const trial: Trial = {
              iteration,
              ...(options.plan ? { plan: options.plan } : {}),
              context: e.context(m, iteration, 0, begun.extra),
            };
            open = { trial, pending: begun, slot };
            return trial;
          }
          // Decided before any edit (a beforeEdit guard): recorded as `step()` would, then the next one.
          const done = await outcome(iteration, await settleInPlace(e, m, begun, slot.checkpoint()));
          if (done.stopped) throw stoppedError();
        }
      }),
    tell: (trial: Trial, edit: TrialEdit) =>
      guarded(async (): Promise<StepOutcome> => {
        if (summary || closed) throw stoppedError();
        if (!open || open.trial !== trial) {
          const which = open ? `the open trial is iteration ${open.trial.iteration}` : 'no trial is open';
          throw new LoopError(
            'TRIAL_UNKNOWN',
            `[loop] [engine] tell() of a trial that is not open ` +
              `(iteration ${trial?.iteration}; ${which}): ask() first, and tell each ` +
              `trial once`,
          );
        }
        const { pending, slot } = open;
        let o: Outcome;
        try {
          if ('error' in edit) {
            addData(pending.o, edit.data);
            o = proposerCrash(e, pending.o, new Error(edit.error));
          } else o = await finishCandidate(e, m, pending, edit, { repair: false, strict: true });
        } catch (error) {
          if (isLoopError(error, 'EDIT_OUTSIDE_ARTIFACT')) throw error; // the trial stays open, nothing touched
          open = undefined;
          return slot.unwind(error);
        }
        open = undefined;
        return outcome(trial.iteration, await settleInPlace(e, m, o, slot.checkpoint()));
      }),
    stop: (message = 'stopped by the host') =>
      guarded(async (): Promise<LoopSummary | undefined> => {
        if (summary) return summary;
        if (!started || closed) {
          await close();
          return undefined;
        }
        if (open) {
          const cp = open.slot.checkpoint();
          const iteration = open.trial.iteration;
          open = undefined;
          if (cp) await revertInPlace(e, cp, iteration);
        }
        return finish({ reason: 'host', message });
      }),
  };
}

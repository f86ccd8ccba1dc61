import { isBetter } from '../contracts/scorer.js';
import type { WorkingCopy } from '../contracts/working-copy.js';
import { adoptWinner, saveNonWinners } from './batch-step.js';
import { runCandidate } from './candidate.js';
import type { Outcome, Slot } from './outcome.js';
import type { Engine } from './engine.js';
import type { ProposalTurn } from './proposal-turns.js';
import { pushRow, type SessionMemory } from './session-memory.js';
import { adoptIncumbent, afterRows, emitRow, logOutcome, recordOf, type StepEnd } from './step.js';

type Settled = { ok: true; o: Outcome } | { ok: false; error: unknown };

interface Entry {
  settled: Promise<Settled>;
  running: boolean;
  copy?: WorkingCopy;
  /** Its outcome, once its run has ended (until its row is written). */
  outcome?: Outcome;
  /** Settles once its working copy is made (or it ended without one). */
  copied: Promise<void>;
}

/** An async pool of parallel candidates (`parallel.schedule: 'async'`); one per loop. */
export interface AsyncPool {
  /** Records the next iteration in order (starting candidates to keep every slot busy first). */
  step(e: Engine, m: SessionMemory, fingerprint: string | undefined): Promise<StepEnd>;
  /** Whether a candidate is running or waiting for its row. */
  inFlight(): boolean;
  /**
   * Records the next iteration of the candidates in flight and starts none: before a host's in-place
   * trial (`ask()`), which then takes the iteration after them.
   */
  drain(m: SessionMemory, fingerprint: string | undefined): Promise<StepEnd>;
  /** Abandons the candidates still in flight (their runs are killed, no row) and removes their copies. */
  close(): Promise<void>;
}

/**
 * The async schedule of parallel candidates (issue 27 item 4: no idle core). Up to `concurrency`
 * candidates run at once, each in its own working copy; as soon as one ends (kept, reverted,
 * pruned, crashed) the next iteration starts in its slot, without waiting for the others.
 * Decisions and rows still go in iteration order, each `step()` recording one: candidate n waits
 * until every earlier one is recorded, is kept only when it is still better than the incumbent
 * then (one kept meanwhile may have raised the bar: the row says so), is adopted into the main
 * workspace (verified) and committed, or saved as a discard (`refs/loop/discarded/<n>` with git)
 * before its row. The main workspace is touched by one thing at a time: a copy is made, or a
 * candidate adopted, never both at once. Proposer calls keep the candidates' order.
 *
 * A candidate is not started when the stop policy would stop the loop once every earlier
 * iteration is recorded (so `maxIterations` starts none beyond it); at the stop, candidates still
 * in flight are abandoned: their runs are killed and they leave no row.
 */
export function createAsyncPool(e: Engine): AsyncPool {
  const b = e.options.parallel!;
  const width = b.concurrency ?? b.candidates ?? 1;
  const entries = new Map<number, Entry>();
  const abandon = new AbortController();
  const onLoopAbort = () => abandon.abort(e.signal.reason);
  e.signal.addEventListener('abort', onLoopAbort, { once: true });
  let next: number | undefined;
  let closing = false;
  // Steps being awaited: a freed slot starts a candidate only then, so a host that calls `step()`
  // once (MCP's loop_run_iteration) leaves at most the candidates in flight, not a run ahead.
  let driving = 0;
  let lastPass: Promise<void> = Promise.resolve();
  let main: Promise<unknown> = Promise.resolve();
  /** Runs `fn` when nothing else touches the main workspace. */
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = main.then(fn, fn);
    main = run.catch(() => undefined);
    return run;
  };
  /** The proposer's `finished`: candidates whose run ended, their rows not written yet. */
  const finished = () =>
    [...entries.values()]
      .flatMap((x) => (x.outcome && !x.outcome.aborted ? [x.outcome] : []))
      .sort((a, b) => a.iteration - b.iteration)
      .map((o) => recordOf(o, ''));
  const running = () => [...entries.values()].filter((x) => x.running).length;
  const usedSlots = () => new Set([...entries.values()].filter((x) => x.running).map((x) => x.copy?.k));
  const wouldStop = (m: SessionMemory, iteration: number): boolean => {
    try {
      // As if every earlier iteration were recorded; the ones not yet are pending (a predictive budget counts them).
      return e.stopPolicy.check({ ...e.loopState(m), iteration: iteration - 1, pending: entries.size }) !== undefined;
    } catch {
      return false;
    }
  };
  const turn = (): ProposalTurn => {
    const previous = lastPass;
    let pass = () => {};
    lastPass = new Promise<void>((resolve) => (pass = resolve));
    return { wait: () => previous, pass: () => pass() };
  };

  const start = (m: SessionMemory, iteration: number, force = false) => {
    if (closing || (!force && wouldStop(m, iteration))) return false;
    let k = 0;
    const used = usedSlots();
    while (used.has(k)) k += 1;
    let copied = () => {};
    const entry: Entry = {
      running: true,
      settled: Promise.resolve({ ok: false, error: undefined }),
      copied: new Promise<void>((resolve) => (copied = resolve)),
    };
    const open = async (): Promise<Slot> =>
      exclusive(async () => {
        let copy: WorkingCopy;
        try {
          copy = await b.workingCopies.create(iteration, k);
        } finally {
          copied();
        }
        entry.copy = copy;
        return {
          artifact: copy.artifact,
          harness: copy.harness,
          fingerprint: await copy.harness.fingerprint?.(),
          workingCopy: copy,
          signal: abandon.signal,
        };
      });
    entries.set(iteration, entry);
    entry.settled = runCandidate(e, m, iteration, k, open, undefined, turn(), () => ({ finished: finished() })).then(
      (o): Settled => {
        o.ended = e.clock.now(); // its row may wait for earlier ones: the time it took ends here
        entry.outcome = o;
        return { ok: true, o };
      },
      (error: unknown): Settled => ({ ok: false, error }),
    );
    void entry.settled.then(() => {
      copied(); // it ended before its copy was made (a proposer failure, a guard)
      entry.running = false;
      if (driving > 0) fill(m); // the slot is free: the next candidate starts now, not when the slowest ends
    });
    return true;
  };
  const fill = (m: SessionMemory) => {
    next = Math.max(next ?? 0, m.history.length); // a host's in-place trial may have taken iterations
    while (!closing && running() < width && start(m, next)) next += 1;
  };

  /** Records the next iteration in order (see `AsyncPool.step`). */
  const stepOnce = async (m: SessionMemory, fingerprint: string | undefined, startNew = true): Promise<StepEnd> => {
    await e.checkFingerprint(fingerprint);
    if (startNew) fill(m);
    const iteration = m.history.length;
    if (!entries.has(iteration)) {
      start(m, iteration, true);
      next = Math.max(next ?? 0, iteration + 1);
    }
    const entry = entries.get(iteration)!;
    const settled = await entry.settled;
    if (!settled.ok) throw settled.error;
    const o = settled.o;
    if (e.signal.aborted || o.aborted) return 'aborted';
    return exclusive(async () => {
      entries.delete(iteration);
      try {
        return await record(e, m, o);
      } finally {
        await entry.copy?.dispose?.();
      }
    });
  };

  return {
    async step(_e, m, fingerprint) {
      driving += 1;
      try {
        return await stepOnce(m, fingerprint);
      } finally {
        driving -= 1;
        // The main workspace is the host's once the step returns (an agent edits it, MCP writes a held
        // edit back): every candidate started has its copy made from it before then, none after.
        if (driving === 0) await Promise.all([...entries.values()].map((x) => x.copied));
      }
    },
    inFlight: () => entries.size > 0,
    drain: (m, fingerprint) => stepOnce(m, fingerprint, false),
    async close() {
      closing = true;
      abandon.abort(new Error('the loop stopped: candidates in flight are abandoned'));
      e.signal.removeEventListener('abort', onLoopAbort);
      const left = [...entries.values()];
      entries.clear();
      await Promise.all(left.map((x) => x.settled));
      await main;
      for (const x of left) await x.copy?.dispose?.();
    },
  };
}

/** Decides `o` against the incumbent as it is now, adopts or saves it, and writes its row. */
async function record(e: Engine, m: SessionMemory, o: Outcome): Promise<StepEnd> {
  if (o.status === 'kept' && !isBetter(o.score as number, m.best, e.direction)) {
    const why = `the incumbent kept meanwhile (iteration ${m.counters.incumbent?.iteration}) scores ${m.best}`;
    o.status = 'reverted';
    o.decision = { ...o.decision!, keep: false, reason: `passed (${o.decision!.reason}) but ${why}` };
    o.description = `${o.description} (not better than the incumbent kept meanwhile)`;
  }
  const kept = o.status === 'kept' && !o.halt;
  const adopted = kept ? await adoptWinner(e, o) : undefined;
  const saved = kept ? undefined : await saveNonWinners(e, [o], undefined);
  const record = recordOf(o, adopted?.candidateId ?? saved?.get(o) ?? '');
  await e.results.append(record); // durable before the keep
  await logOutcome(e, o, record, { schedule: 'async' });
  const previousBest = m.best;
  if (adopted) adoptIncumbent(m, o, await e.options.rollback.keep(adopted.cp, adopted.candidateId || undefined));
  if (o.halt) {
    m.halted = o.halt;
    if (o.fatal) m.fatal = o.fatal;
  }
  pushRow(m, record);
  m.proposerFailures = o.proposerFailed ? m.proposerFailures + 1 : 0;
  return afterRows(e, m, () => emitRow(e, o, record, previousBest));
}

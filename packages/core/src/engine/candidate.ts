import { firstVerdict } from '../contracts/guard.js';
import type { EditPlan, Proposal, ProposalContext } from '../contracts/proposer.js';
import type { MaybePromise } from '../contracts/types.js';
import type { Engine } from './engine.js';
import { applyVerdict, type IncumbentRemeasure, type Outcome, type PendingCandidate, type Slot } from './outcome.js';
import type { ProposalTurn } from './proposal-turns.js';
import type { SessionMemory } from './session-memory.js';
import { finishCandidate } from './finish-candidate.js';
import { proposerCrash } from './proposer-crash.js';

/**
 * Opens ONE candidate: emits `iteration-started`, plans (`plan`, the proposer's or a host's),
 * runs the `beforeEdit` guards and opens the slot (the checkpoint), then takes the snapshot the
 * edit is compared with.
 *
 * @returns the pending candidate, or its final outcome when it ended before any edit (a failing
 *   plan, a guard's verdict).
 */
export async function beginCandidate(
  e: Engine,
  m: SessionMemory,
  iteration: number,
  k: number,
  open: (plan: EditPlan | undefined) => Promise<Slot>,
  planOf: () => Promise<EditPlan | undefined>,
): Promise<Outcome | PendingCandidate> {
  const o: Outcome = {
    iteration,
    k,
    started: e.clock.now(),
    status: 'reverted',
    score: null,
    description: '',
    candidateId: '',
    samples: [],
    dimensions: [],
    gates: [],
    logTail: '',
    proposerFailed: false,
    aborted: false,
    seedOnly: false,
    data: {},
  };
  e.hub.emit({ type: 'iteration-started', iteration, attempt: 0 });
  let plan: EditPlan | undefined;
  try {
    plan = await planOf();
  } catch (error) {
    return proposerCrash(e, o, error);
  }
  if (plan) o.plan = plan;
  o.description = plan?.description ?? '';
  const before = await firstVerdict(e.guards, 'beforeEdit', e.guardInput(m, iteration, plan));
  if (before) return applyVerdict(o, before.guard.name, before.verdict, 'rejected');
  const slot = await open(plan);
  o.slot = slot;
  const snapshotBefore = slot.artifact ? await slot.artifact.inspect() : undefined;
  const detector = e.options.keep?.seedOnlyDetector;
  const captured = detector?.capture ? await detector.capture(slot.artifact) : undefined;
  const extra = {
    ...(plan ? { plan } : {}),
    ...(slot.artifact ? { artifact: slot.artifact } : {}),
    ...(slot.workingCopy ? { workingCopy: slot.workingCopy } : {}),
    ...(slot.signal ? { signal: slot.signal } : {}),
  };
  return { o, slot, plan, snapshotBefore, captured, extra };
}

/** True when `x` is a pending candidate (not an outcome decided before the edit). */
export const isPending = (x: Outcome | PendingCandidate): x is PendingCandidate =>
  'slot' in x && 'extra' in x && 'o' in x;

/**
 * Plans, edits, checks and evaluates ONE candidate with the configured proposer in the slot `open`
 * returns (see {@link beginCandidate} and {@link finishCandidate}); writes no row and keeps or
 * reverts nothing (the step does). An in-place and a parallel candidate take this same path.
 * `live` adds to the proposer's context what is known when it is called (the async pool's
 * finished candidates), not when the candidate began.
 */
export async function runCandidate(
  e: Engine,
  m: SessionMemory,
  iteration: number,
  k: number,
  open: (plan: EditPlan | undefined) => Promise<Slot>,
  incumbent?: Promise<IncumbentRemeasure>,
  turn?: ProposalTurn,
  live?: () => Partial<ProposalContext>,
): Promise<Outcome> {
  const proposer = e.proposer();
  let begun: Outcome | PendingCandidate;
  try {
    begun = await beginCandidate(e, m, iteration, k, open, async () =>
      proposer.plan ? proposer.plan(e.context(m, iteration, 0)) : undefined,
    );
  } finally {
    if (!begun! || !isPending(begun)) turn?.pass();
  }
  if (!isPending(begun)) return begun;
  let started: MaybePromise<Proposal>;
  await turn?.wait();
  try {
    started = proposer.propose(e.context(m, iteration, 0, { ...live?.(), ...begun.extra }));
  } catch (error) {
    return proposerCrash(e, begun.o, error);
  } finally {
    turn?.pass(); // the next candidate's proposer is called once this one's has been
  }
  let proposal: Proposal;
  try {
    proposal = await started;
  } catch (error) {
    return proposerCrash(e, begun.o, error);
  }
  return finishCandidate(e, m, begun, proposal, { repair: true, ...(incumbent ? { incumbent } : {}) });
}

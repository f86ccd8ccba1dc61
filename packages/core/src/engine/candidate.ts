import { compareSnapshots, isUnder, type Artifact } from '../artifact.js';
import { isLoopError, type LoopError } from '../errors.js';
import { firstVerdict, type GuardVerdict } from '../guard.js';
import type { Harness } from '../harness.js';
import type { IterationStatus } from '../iteration-record.js';
import type { KeepDecision } from '../keep-policy.js';
import type { EditPlan, Proposal } from '../proposer.js';
import type { CandidateInfo } from '../rollback-strategy.js';
import { summarizeSamples } from '../statistics.js';
import type { WorkingCopy } from '../working-copy.js';
import type { Engine } from './engine.js';
import type { HaltInfo, PerSample, RunState } from './run-state.js';

/** Where one candidate is edited and evaluated: the main workspace (in place) or a working copy. */
export interface Slot {
  readonly artifact: Artifact | undefined;
  readonly harness: Harness;
  /** The harness fingerprint taken at the start (main) or when the copy was made. */
  readonly fingerprint: string | undefined;
  readonly workingCopy?: WorkingCopy;
  /** In place: records the candidate before its evaluation (`rollback.commit`); returns its id. */
  readonly commit?: (info: CandidateInfo) => Promise<string>;
}

/** Fresh incumbent samples for one batch (`parallel.remeasureIncumbent`). */
export interface IncumbentRemeasure {
  samples: number[];
  dimensions: PerSample<Record<string, number>>;
  crashed: number;
  error?: unknown;
}

/** What one candidate came to, before its batch's winner is chosen and its row is written. */
export interface Outcome {
  readonly iteration: number;
  readonly k: number;
  readonly started: number;
  slot?: Slot;
  plan?: EditPlan;
  status: IterationStatus;
  label?: string;
  note?: string;
  score: number | null;
  description: string;
  error?: string;
  changedFiles?: readonly string[];
  candidateId: string;
  decision?: KeepDecision;
  samples: number[];
  dimensions: PerSample<Record<string, number>>;
  gates: PerSample<Record<string, boolean>>;
  logTail: string;
  proposerFailed: boolean;
  aborted: boolean;
  seedOnly: boolean;
  /** Set when this candidate halts the loop. */
  halt?: HaltInfo;
  /** The error the run throws after its stop sequence (HARNESS_TAMPERED). */
  fatal?: LoopError;
}

/** Says which violations touched a read-only path and which lie elsewhere outside the targets. */
function describeViolations(artifact: Artifact, violations: readonly string[]): string {
  const path = (v: string) => v.replace(/ \(.*\)$/, '');
  const readOnly = violations.filter((v) => artifact.readOnly.some((r) => isUnder(path(v), r)));
  const outside = violations.filter((v) => !readOnly.includes(v));
  return [readOnly.length ? `changed read-only ${readOnly.join(', ')}` : '', outside.length ? `changed outside the targets ${outside.join(', ')}` : ''].filter(Boolean).join('; ');
}

const messageOf = (error: unknown) => (isLoopError(error) ? error.message : (error as Error)?.message ?? String(error));

/** Applies a guard's verdict to `o`: the row's class, label and note. */
function applyVerdict(o: Outcome, guard: string, verdict: GuardVerdict, rejectedClass: IterationStatus): Outcome {
  const status: IterationStatus = verdict.action === 'halt' ? 'halted' : verdict.action === 'skip' ? 'reverted' : rejectedClass;
  o.status = status;
  o.note = `${guard}: ${verdict.note}`;
  o.description = `${o.description} (${o.note})`;
  if (verdict.status) o.label = verdict.status;
  if (verdict.action === 'halt') o.halt = { status: verdict.status ?? 'halted', note: o.note };
  return o;
}

/**
 * Plans, edits, checks and evaluates ONE candidate in the slot `open` returns, with repairs,
 * seed-only detection, the keep policy and the guards; writes no row and keeps or reverts
 * nothing (the step does). An in-place and a parallel candidate take this same path.
 *
 * @throws whatever the proposer's infrastructure, the harness or a guard throws unexpectedly; the
 *   step leaves the workspace at the last kept state before it propagates.
 */
export async function runCandidate(
  e: Engine,
  m: RunState,
  iteration: number,
  k: number,
  open: (plan: EditPlan | undefined) => Promise<Slot>,
  incumbent?: Promise<IncumbentRemeasure>,
): Promise<Outcome> {
  const { proposer } = e.options;
  const o: Outcome = { iteration, k, started: e.clock.now(), status: 'reverted', score: null, description: '', candidateId: '', samples: [], dimensions: [], gates: [], logTail: '', proposerFailed: false, aborted: false, seedOnly: false };
  const proposerCrash = (error: unknown): Outcome => {
    if (e.signal.aborted) return { ...o, aborted: true };
    const message = messageOf(error);
    return Object.assign(o, { status: 'crash' as const, description: `proposer failed: ${message}`, error: message, proposerFailed: true });
  };
  e.hub.emit({ type: 'iteration-started', iteration, attempt: 0 });

  let plan: EditPlan | undefined;
  try {
    plan = proposer.plan ? await proposer.plan(e.context(m, iteration, 0)) : undefined;
  } catch (error) {
    return proposerCrash(error);
  }
  if (plan) o.plan = plan;
  o.description = plan?.description ?? '';
  const before = await firstVerdict(e.guards, 'beforeEdit', e.guardInput(m, iteration, plan));
  if (before) return applyVerdict(o, before.guard.name, before.verdict, 'rejected');

  const slot = await open(plan);
  o.slot = slot;
  const snapshotBefore = slot.artifact ? await slot.artifact.inspect() : undefined;
  const detector = e.options.seedOnlyDetector;
  const captured = detector?.capture ? await detector.capture() : undefined;
  const extra = { ...(plan ? { plan } : {}), ...(slot.artifact ? { artifact: slot.artifact } : {}), ...(slot.workingCopy ? { workingCopy: slot.workingCopy } : {}) };
  let proposal: Proposal;
  try {
    proposal = await proposer.propose(e.context(m, iteration, 0, extra));
  } catch (error) {
    return proposerCrash(error);
  }

  for (let attempt = 0; ; ) {
    if (e.signal.aborted) return { ...o, aborted: true };
    o.description = proposal.description;
    const changes = slot.artifact && snapshotBefore ? compareSnapshots(slot.artifact, snapshotBefore, await slot.artifact.inspect()) : undefined;
    const changedFiles = changes?.changed ?? proposal.changedFiles;
    if (changedFiles) o.changedFiles = changedFiles;
    if (slot.commit) o.candidateId = await slot.commit({ iteration, attempt, description: proposal.description, ...(proposal.changedFiles ? { changedFiles: proposal.changedFiles } : {}) });
    if (changes && changes.violations.length > 0) {
      return Object.assign(o, { status: 'rejected' as const, description: `${proposal.description} (${describeViolations(slot.artifact!, changes.violations)})` });
    }
    if (changes && changes.changed.length === 0) {
      return Object.assign(o, { status: 'reverted' as const, description: `${proposal.description} (no change: not evaluated)` });
    }
    const run = await firstVerdict(e.guards, 'beforeRun', { ...e.guardInput(m, iteration, plan), ...(slot.workingCopy ? { workingCopy: slot.workingCopy } : {}), changes, description: proposal.description });
    if (run) return applyVerdict(o, run.guard.name, run.verdict, 'rejected');
    o.seedOnly = changes !== undefined && detector !== undefined
      ? await detector.isSeedOnlyChange({ ...changes, description: proposal.description, ...(slot.workingCopy?.dir ? { root: slot.workingCopy.dir } : {}) }, captured)
      : false;
    try {
      await e.checkFingerprint(slot.fingerprint, slot.harness);
    } catch (error) {
      if (!isLoopError(error, 'HARNESS_TAMPERED')) throw error;
      const label = e.statusNames.harnessTampered;
      return Object.assign(o, { status: 'halted' as const, label, note: error.message, description: `${proposal.description} (${label})`, halt: { status: label, note: error.message, code: error.code }, fatal: error });
    }
    const { result } = await e.evaluate(iteration, 0, slot.harness);
    if (e.signal.aborted) return { ...o, aborted: true };
    if (result.ok) {
      o.samples = [result.value];
      o.dimensions = [result.dimensions];
      o.gates = [result.gates];
      let repeat = 0;
      const sample = async (): Promise<number | undefined> => {
        if (e.signal.aborted) return undefined;
        repeat += 1;
        await e.checkFingerprint(slot.fingerprint, slot.harness);
        const again = (await e.evaluate(iteration, repeat, slot.harness)).result;
        if (e.signal.aborted || !again.ok) return undefined;
        o.samples.push(again.value);
        o.dimensions.push(again.dimensions);
        o.gates.push(again.gates);
        return again.value;
      };
      const fresh = incumbent ? await incumbent : undefined;
      const useFresh = fresh !== undefined && fresh.samples.length > 0;
      const proposed = await e.keepPolicy.decide({
        candidate: result.value,
        incumbent: useFresh ? summarizeSamples(fresh.samples).mean : m.best,
        direction: e.direction,
        candidateSamples: o.samples,
        incumbentSamples: useFresh ? fresh.samples : m.incumbentSamples,
        candidateDimensions: o.dimensions,
        incumbentDimensions: useFresh ? fresh.dimensions : m.incumbentDimensions,
        candidateGates: o.gates,
        ...(m.incumbentGates ? { incumbentGates: m.incumbentGates } : {}),
        sample,
        seedOnly: o.seedOnly,
      });
      // A seed-only change is never kept, whatever the policy (issue 17).
      const decision = o.seedOnly && proposed.keep ? { keep: false, reason: `seed-only change: never kept (the policy said: ${proposed.reason})` } : proposed;
      if (e.signal.aborted) return { ...o, aborted: true };
      o.decision = decision;
      o.score = o.samples.length > 1 ? summarizeSamples(o.samples).mean : result.value;
      o.status = decision.keep ? 'kept' : 'reverted';
      if (decision.status) o.label = decision.status;
      o.description = o.seedOnly ? `${proposal.description} (seed-only change)` : proposal.description;
      if (decision.keep) {
        const after = await firstVerdict(e.guards, 'afterScore', { ...e.guardInput(m, iteration, plan), ...(slot.workingCopy ? { workingCopy: slot.workingCopy } : {}), score: result, decision, description: o.description });
        if (after) applyVerdict(o, after.guard.name, after.verdict, 'reverted');
      }
      return o;
    }
    o.logTail = result.logTail ?? '';
    if (attempt < e.maxRepairs && proposer.repair !== undefined) {
      const record = { iteration, candidateId: o.candidateId, score: null, status: 'crash' as const, description: `${proposal.description} (${result.message})`, error: result.message };
      e.hub.emit({ type: 'crash', record, logTail: o.logTail, willRepair: true, durationMs: e.clock.now() - o.started });
      attempt += 1;
      e.hub.emit({ type: 'iteration-started', iteration, attempt });
      const repaired = await proposer.repair(e.context(m, iteration, attempt, { ...extra, crash: { message: result.message, logTail: o.logTail } }));
      if (repaired) {
        proposal = { ...repaired, description: `${proposal.description}; repair ${attempt}: ${repaired.description}` };
        continue;
      }
    }
    return Object.assign(o, { status: 'crash' as const, description: `${proposal.description} (crash: ${result.message})`, error: result.message });
  }
}

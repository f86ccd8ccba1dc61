import { firstVerdict } from '../contracts/guard.js';
import type { CandidateData, IterationRecord } from '../contracts/iteration-record.js';
import type { EditPlan, Proposal } from '../contracts/proposer.js';
import type { ScoreOk } from '../contracts/scorer.js';
import { summarizeSamples } from '../stats/statistics.js';
import type { Engine } from './engine.js';
import { addData, applyVerdict, type FinishOptions, type Outcome, type Slot } from './outcome.js';
import type { SessionMemory } from './session-memory.js';

/** `{ [key]: row.data }` when the row has a record, else `{}`. */
function rowData<K extends string>(key: K, row: IterationRecord | undefined): { [P in K]?: CandidateData } {
  return (row?.data ? { [key]: row.data } : {}) as { [P in K]?: CandidateData };
}

/**
 * Decides a candidate whose first run scored `result`: the keep policy (which may re-sample it
 * through `sample`), the seed-only rule (issue 17: a seed-only change is never kept, whatever the
 * policy), then the `afterScore` guards for a keep. Sets the outcome's score (the mean of its
 * samples), status, label and description; writes no row.
 */
export async function decide(
  e: Engine,
  m: SessionMemory,
  o: Outcome,
  slot: Slot,
  plan: EditPlan | undefined,
  proposal: Proposal,
  result: ScoreOk,
  options: FinishOptions,
): Promise<Outcome> {
  const { iteration } = o;
  o.samples = [result.value];
  o.dimensions = [result.dimensions];
  o.gates = [result.gates];
  const metrics: (Readonly<Record<string, number>> | undefined)[] = [o.data.metrics];
  let repeat = 0;
  const sample = async (): Promise<number | undefined> => {
    if (e.signal.aborted) return undefined;
    repeat += 1;
    await e.checkFingerprint(slot.fingerprint, slot.harness);
    const again = await e.evaluate(iteration, repeat, slot.harness, undefined, slot.signal);
    if (e.signal.aborted || !again.result.ok) return undefined;
    o.samples.push(again.result.value);
    o.dimensions.push(again.result.dimensions);
    o.gates.push(again.result.gates);
    metrics.push(again.data?.metrics);
    return again.result.value;
  };
  const fresh = options.incumbent ? await options.incumbent : undefined;
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
    candidateData: o.data,
    candidateMetrics: metrics,
    ...rowData('incumbentData', m.counters.incumbent),
    ...rowData('baselineData', m.history[0]),
    history: m.history,
  });
  // A seed-only change is never kept, whatever the policy (issue 17).
  const decision =
    o.seedOnly && proposed.keep
      ? { keep: false, reason: `seed-only change: never kept (the policy said: ${proposed.reason})` }
      : proposed;
  if (e.signal.aborted) return { ...o, aborted: true };
  o.decision = decision;
  addData(o, proposed.data);
  o.score = o.samples.length > 1 ? summarizeSamples(o.samples).mean : result.value;
  o.status = decision.keep ? 'kept' : 'reverted';
  if (decision.status) o.label = decision.status;
  o.description = o.seedOnly ? `${proposal.description} (seed-only change)` : proposal.description;
  if (proposed.note) {
    o.note = proposed.note;
    o.description = `${o.description} (${proposed.note})`;
  }
  if (decision.keep) {
    const after = await firstVerdict(e.guards, 'afterScore', {
      ...e.guardInput(m, iteration, plan),
      ...(slot.workingCopy ? { workingCopy: slot.workingCopy } : {}),
      score: result,
      decision,
      description: o.description,
    });
    if (after) applyVerdict(o, after.guard.name, after.verdict, 'reverted');
  }
  return o;
}

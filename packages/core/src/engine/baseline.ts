import { LoopError } from '../contracts/errors.js';
import type { CandidateData, IterationRecord } from '../contracts/iteration-record.js';
import { summarizeSamples } from '../stats/statistics.js';
import type { Engine } from './engine.js';
import { treeDigest } from './tree-digest.js';
import { pushRow, type PerSample, type SessionMemory } from './session-memory.js';

/**
 * Evaluates the unmodified artifact `baselineRepeats` times and records row 0 (its score is the
 * mean); the state store is written after it.
 *
 * @throws {LoopError} `BASELINE_FAILED` when any repeat crashes or the signal aborts;
 *   `HARNESS_TAMPERED` when the harness changes between repeats.
 */
export async function runBaseline(e: Engine, m: SessionMemory, fingerprint: string | undefined): Promise<void> {
  const { rollback } = e.options;
  e.hub.emit({ type: 'iteration-started', iteration: 0, attempt: 0 });
  const cp = await rollback.checkpoint(0);
  const id = (await rollback.currentId?.()) ?? cp.id;
  const samples: number[] = [];
  const dimensions: PerSample<Record<string, number>> = [];
  let gates: Readonly<Record<string, boolean>> | undefined;
  let durationMs = 0;
  let data: CandidateData | undefined;
  for (let repeat = 0; repeat < e.baselineRepeats; repeat++) {
    await e.checkFingerprint(fingerprint);
    const run = await e.evaluate(0, repeat);
    const { result } = run;
    durationMs += run.durationMs;
    if (run.data) data = { ...data, ...run.data };
    if (e.signal.aborted)
      throw new LoopError('BASELINE_FAILED', '[loop] [engine] aborted during the baseline run; nothing was recorded', {
        details: { aborted: true },
      });
    if (!result.ok) {
      const which = e.baselineRepeats > 1 ? ` (repeat ${repeat + 1} of ${e.baselineRepeats})` : '';
      throw new LoopError(
        'BASELINE_FAILED',
        `[loop] [engine] the baseline run${which} crashed (${result.message}); ` +
          `fix the harness before starting the loop. Last log ` +
          `lines:\n${result.logTail ?? ''}`,
        { details: { reason: result.reason, logTail: result.logTail, repeat } },
      );
    }
    samples.push(result.value);
    dimensions.push(result.dimensions);
    gates = result.gates;
  }
  const spread = summarizeSamples(samples);
  const dims = dimensions.at(-1);
  // The baseline's tree is an evaluated tree too: kept in its record, a resumed session still skips it.
  if (e.options.artifact && e.options.keep?.skipDuplicates)
    data = { ...data, tree: treeDigest(await e.options.artifact.inspect()) };
  const record: IterationRecord = {
    iteration: 0,
    candidateId: id,
    score: spread.mean,
    status: 'baseline',
    description: 'baseline',
    ...(dims ? { dimensions: dims } : {}),
    ...(gates ? { gates } : {}),
    ...(data ? { data } : {}),
  };
  await e.results.append(record);
  m.baseline = m.best = spread.mean;
  m.bestId = id;
  m.baselineSamples = samples;
  m.baselineSpread = spread;
  m.incumbentSamples = [...samples];
  m.incumbentDimensions = dimensions;
  m.incumbentGates = gates;
  pushRow(m, record);
  await e.logDecision({ iteration: 0, candidateId: id, status: 'baseline', score: spread.mean, samples, spread });
  await e.writeState(m, 'running');
  e.hub.emit({ type: 'baseline', record, durationMs, samples, spread });
}

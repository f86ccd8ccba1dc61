import { type IterationRecord, type IterationStatus } from '@loop/core';
import { describeSpend, spendOf } from '@loop/core/policies';
import { readIterationTimes } from './iteration-times.js';

/**
 * What the agent proposer's rows of the run in `dir` cost, as one line (core `describeSpend` over
 * `.loop/iterations.jsonl`: `spent $0.42 and 12,345 tokens on 7 proposals: ... on 2 kept, ...`), or
 * `undefined` when no row carries a cost (a run without an agent proposer, or an agent that reports none).
 */
export async function readSpendLine(dir: string): Promise<string | undefined> {
  const times = await readIterationTimes(dir);
  const rows = [...times.values()].map((t): IterationRecord => ({
    iteration: t.iteration,
    candidateId: '',
    score: t.score,
    status: t.status as IterationStatus,
    description: '',
    ...(t.data ? { data: t.data } : {}),
  }));
  return describeSpend(spendOf(rows));
}

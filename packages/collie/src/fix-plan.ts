import { LoopError } from '@loop/core';
import type { FixRecord } from './records.js';

/**
 * The Stage 5.0 task DAG: batches of FIX ids in execution order; independent FIXes share a batch.
 * A dependency on a FIX outside `fixes` (deferred or dropped) is ignored.
 *
 * @throws {LoopError} `CONFIG_INVALID` naming the FIXes when the dependencies form a cycle.
 */
export function fixBatches(fixes: readonly Pick<FixRecord, 'id' | 'dependencies'>[]): string[][] {
  const ids = new Set(fixes.map((f) => f.id));
  const pending = new Map(fixes.map((f) => [f.id, new Set(f.dependencies.filter((d) => ids.has(d) && d !== f.id))]));
  const batches: string[][] = [];
  while (pending.size > 0) {
    const ready = [...pending]
      .filter(([, deps]) => deps.size === 0)
      .map(([id]) => id)
      .sort();
    if (ready.length === 0) {
      throw new LoopError(
        'CONFIG_INVALID',
        `[loop] [collie] FIX dependencies form a cycle ` +
          `among ${[...pending.keys()].sort().join(', ')}; fix the dependencies ` +
          `fields of those FIX records`,
        { details: { fixes: [...pending.keys()] } },
      );
    }
    for (const id of ready) pending.delete(id);
    for (const deps of pending.values()) for (const id of ready) deps.delete(id);
    batches.push(ready);
  }
  return batches;
}

/** What Stage 5.0 needs besides the eligible FIXes. */
export interface FixPlanInputs {
  /** Absolute path of iter-N/fix-plan.md (the plan-source line). */
  readonly planPath: string;
  /** The iteration number. */
  readonly iter: number;
  /** The E2E assessment, inherited verbatim from run-spec.md (never re-derived). */
  readonly e2e: string;
}

/**
 * Renders iter-N/fix-plan.md (seed 000 Stage 5.0): the three metadata lines, the task DAG, the
 * task details (root_cause → Why, fix_outline → How, reproduction_test → Verify, key files), the
 * impact assessment (affected files aggregated; reverse impact "None — iter-local change") and the
 * E2E assessment inherited from the run spec. Only G8/G2-eligible FIXes belong here.
 */
export function renderFixPlan(fixes: readonly FixRecord[], inputs: FixPlanInputs): string {
  const batches = fixBatches(fixes);
  const files = [...new Set(fixes.flatMap((f) => f.key_files))].sort();
  const lines = [
    `<!-- plan-source: ${inputs.planPath} -->`,
    `<!-- plan-topic: autoiter-iter-${inputs.iter}-fixes -->`,
    '<!-- plan-executor: collie:flow -->',
    '',
    `# Fix plan — iter-${inputs.iter}`,
    '',
    '## Task Execution DAG',
    ...batches.map((b, i) => `- batch ${i + 1}: ${b.join(', ')}`),
    '',
    '## Task Details',
  ];
  for (const id of batches.flat()) {
    const f = fixes.find((x) => x.id === id)!;
    lines.push(
      '',
      `### ${f.id} (${f.kind}, severity ${f.severity}, fix_confidence ${f.fix_confidence})`,
      `- Why: ${f.root_cause.trim()}`,
      `- How: ${f.fix_outline.trim()}`,
      `- Key files: ${f.key_files.join(', ') || '(none)'}`,
      `- Depends on: ${f.dependencies.join(', ') || '(none)'}`,
      '- Verify:',
      '```',
      f.reproduction_test.trimEnd(),
      '```',
    );
  }
  lines.push(
    '',
    '## Impact Assessment',
    `- Affected files: ${files.join(', ') || '(none)'}`,
    '- Reverse impact: None — iter-local change',
    '',
    '## E2E Assessment',
    inputs.e2e.trim() || '(none in run-spec)',
    '',
  );
  return lines.join('\n');
}

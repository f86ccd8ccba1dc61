/**
 * @loop/auto-iterate: the auto-iterate preset (seeds 001 and 003, target type `code`). A run
 * command, a metric grepped from its log, a direction, a time budget and a hard kill timeout; every
 * experiment committed on `auto-iterate/<tag>` before it runs, discards and crashes reset to the
 * last keep, results.tsv `commit score status description` kept out of git.
 *
 * @example
 * import { createAutoIterate, formatIterationLine, formatSummary } from '@loop/auto-iterate';
 * import { createHyperparameterMutator, createSeededRandom } from '@loop/core';
 *
 * const run = createAutoIterate({
 *   dir: '/path/to/repo',
 *   files: { targetFiles: ['config.json'], readOnlyFiles: ['prepare.mjs'] },
 *   run: { command: 'node train.mjs', timeBudgetS: 60, killTimeoutS: 120 },
 *   score: { metricName: 'val_bpc', direction: 'minimize' },
 *   stop: { maxIterations: 20 },
 *   proposer: createHyperparameterMutator({ file: '/path/to/repo/config.json', space, random: createSeededRandom(1) }),
 * });
 * run.loop.on('kept', (e) => console.log(formatIterationLine(e)));
 * console.log(formatSummary(await run.run(), 'val_bpc'));
 *
 * @packageDocumentation
 */
// The public entry: the factory and its result, the option types, the results.tsv format (an
// adapter's contract), the presentation helpers and what the CLI builds on. Helpers (the circuit
// breaker, the dimensions log, the metric patterns, the option schema) stay behind it.
export { createAutoIterate } from './auto-iterate.js';
export { RUN_FILES } from './run-files.js';
export type { AutoIterate } from './auto-iterate.js';
export type { HostedLoop } from './hosted-loop.js';
export type { ArchivedRun } from './archive-run.js';
export { describeEarlierRuns } from './agent-memory.js';
export { dateTag } from './auto-iterate-options.js';
export type { AutoIterateOptions, AutoIterateParallel, AutoIterateHoldout } from './auto-iterate-options.js';
export type {
  AutoIterateDirection,
  AutoIterateFiles,
  AutoIterateKeep,
  AutoIterateRecovery,
  AutoIterateRun,
  AutoIterateScore,
  AutoIterateStop,
} from './option-groups.js';
export { checkConstraintOptions } from './metric-constraints.js';
export type { AutoIterateConstraint, MetricsOption } from './metric-constraints.js';
export { HOLDOUT_LOG } from './holdout.js';
export type { AutoIterateSealedHoldout } from './holdout.js';
export { formatIterationLine, formatSummary } from './format.js';
export {
  createResultsTsv,
  parseAutoIterateTsv,
  formatAutoIterateRow,
  formatAutoIterateHistory,
  toAutoIterateStatus,
  AUTO_ITERATE_TSV_HEADER,
  REJECTED_PREFIX,
} from './results-tsv.js';
export type { ResultsTsvOptions, AutoIterateStatus } from './results-tsv.js';
export { createNoNewDependenciesGuard } from './dependency-guard.js';

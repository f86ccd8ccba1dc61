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
 *   dir: '/path/to/repo', targetFiles: ['config.json'], readOnlyFiles: ['prepare.mjs'],
 *   runCommand: 'node train.mjs', metricName: 'val_bpc', direction: 'lower',
 *   timeBudgetS: 60, killTimeoutS: 120, maxIterations: 20,
 *   proposer: createHyperparameterMutator({ file: '/path/to/repo/config.json', space, random: createSeededRandom(1) }),
 * });
 * run.loop.on('kept', (e) => console.log(formatIterationLine(e)));
 * console.log(formatSummary(await run.run(), 'val_bpc'));
 *
 * @packageDocumentation
 */
export { createAutoIterate, RUN_FILES } from './auto-iterate.js';
export type { AutoIterate } from './auto-iterate.js';
export type { HostedLoop } from './hosted-loop.js';
export type { ArchivedRun } from './archive-run.js';
export { describeEarlierRuns, EARLIER_RUNS_DIR } from './agent-memory.js';
export { dateTag } from './auto-iterate-options.js';
export { autoIterateOptionsSchema } from './auto-iterate-schema.js';
export type { AutoIterateOptions, AutoIterateParallel, AutoIterateHoldout } from './auto-iterate-options.js';
export { defaultMetricPattern, metricPatterns, checkConstraintOptions } from './metric-constraints.js';
export type { AutoIterateConstraint, MetricsOption } from './metric-constraints.js';
export { autoIterateHoldout, HOLDOUT_LOG } from './holdout.js';
export type { AutoIterateSealedHoldout } from './holdout.js';
export { createCircuitBreaker, STRATEGY_REVIEW_HINT, STRUCTURAL_CHANGE_HINT } from './circuit-breaker.js';
export type { CircuitBreakerOptions } from './circuit-breaker.js';
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
export { DIMENSION_LINE, parseDimensionLines, withDimensionsTsv, withLogDimensions } from './dimensions-tsv.js';
export type { DimensionsTsvOptions } from './dimensions-tsv.js';
export { createNoNewDependenciesGuard, DEPENDENCY_MANIFESTS, isDependencyManifest } from './dependency-guard.js';

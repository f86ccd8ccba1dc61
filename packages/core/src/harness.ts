/**
 * @loop/core/harness: helpers around the command harness: kept run logs, the tail of a log, the
 * intermediate-report pattern check and the harness's option schema. For hosts and CLIs that keep or show
 * run logs; `createCommandHarness` and `createFunctionHarness` are in `@loop/core`.
 *
 * @packageDocumentation
 * @module @loop/core/harness
 */
export { commandHarnessOptionsSchema } from './harness/command-harness.js';
export { keepRunLog, keptLogName, listKeptLogs } from './harness/run-logs.js';
export type { KeepLogsOptions, KeptLog } from './harness/run-logs.js';
export type { FunctionHarnessResult } from './harness/function-harness.js';
export { readLogTail } from './harness/log-tail.js';
export { intermediatePatternProblem } from './harness/intermediate-pattern.js';
export type { IntermediatePattern } from './harness/intermediate-pattern.js';

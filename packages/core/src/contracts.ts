/**
 * @loop/core/contracts: the detail shapes of core's contracts (statuses, engine phases, event and
 * advice kinds, cost readings, error options), the groups of \`LoopOptions\` (\`LoopFileOptions\`,
 * \`LoopRunOptions\`, \`LoopKeepOptions\`, \`LoopRecoveryOptions\`), the engine's option schemas
 * (\`loopOptionsSchema\`, \`parallelOptionsSchema\`) and \`parseGroupedOptions\` for presets that group
 * their own options. For adapter and host authors who build or validate these shapes; the contracts
 * themselves (\`Artifact\`, \`Harness\`, \`Scorer\`, \`Proposer\`, ...) are in \`@loop/core\`.
 *
 * @packageDocumentation
 * @module @loop/core/contracts
 */
export type { LoopErrorOptions, ConfigIssue } from './contracts/errors.js';
export { ITERATION_STATUSES } from './contracts/iteration-record.js';
export type { StatusCounts, IntermediateReport } from './contracts/iteration-record.js';
export type { CrashReason } from './contracts/scorer.js';
export type { AdviceKind } from './contracts/advisor.js';
export type { CostReading } from './contracts/loop-state.js';
export type { LoopEventOf } from './contracts/events.js';
export type { CrashInfo } from './contracts/proposer.js';
export { parallelOptionsSchema } from './engine/parallel-options.js';
export type { TrialEdit } from './engine/trial.js';
export { loopOptionsSchema } from './engine/options-schema.js';
export { parseGroupedOptions } from './engine/grouped-options.js';
export type { FlatOptionMoves } from './engine/grouped-options.js';
export type { LoopFileOptions, LoopRunOptions, LoopKeepOptions, LoopRecoveryOptions } from './engine/options.js';
export type { EnginePhase } from './contracts/state-store.js';

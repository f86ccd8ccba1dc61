/**
 * @loop/core/proposers: the agent-command proposer and its prompt, usage and memory helpers, the
 * hyperparameter mutator, and the TPE/GP proposer with its config adapters. For hosts that propose edits
 * with a coding agent or tune parameters; `createFunctionProposer` is in `@loop/core`.
 *
 * @packageDocumentation
 * @module @loop/core/proposers
 */
export { createAgentCommandProposer } from './proposers/agent-command-proposer.js';
export { agentCommandProposerOptionsSchema } from './proposers/agent-command-proposer-options.js';
export type { AgentCommandProposerOptions } from './proposers/agent-command-proposer-options.js';
export { buildAgentPrompt, descriptionFromOutput, formatHistoryTable } from './proposers/agent-prompt.js';
export type { HistoryFormatter } from './proposers/agent-prompt.js';
export {
  createHyperparameterMutator,
  hyperparameterMutatorOptionsSchema,
  infeasibleLimits,
} from './proposers/hyperparameter-mutator.js';
export type { HyperparameterMutatorOptions, ParameterSpace } from './proposers/hyperparameter-mutator.js';
export { parseAgentUsage, parseUsageFile, agentAnswerText, USAGE_LINE } from './proposers/agent-usage.js';
export type { AgentUsage } from './proposers/agent-usage.js';
export { buildMemorySections, readNotes, NOTES_LIMITS, DUPLICATE_ROW } from './proposers/agent-memory.js';
export type { AgentMemoryOptions, DiscardedDiff, NotesLimits } from './proposers/agent-memory.js';
export { createTpeProposer, tpeProposerOptionsSchema } from './proposers/tpe/tpe-proposer.js';
export type { TpeProposerOptions } from './proposers/tpe/tpe-proposer.js';
export { tpeParameterSchema } from './proposers/tpe/space.js';
export type { TpeParameter, ParameterValue } from './proposers/tpe/space.js';
export { createConfigFileAdapter, createMemoryConfigAdapter, jsonCodec } from './proposers/tpe/config-adapter.js';
export type { ConfigAdapter, ConfigCodec, ConfigFileAdapterOptions } from './proposers/tpe/config-adapter.js';
export { describeChanges, parseChanges, formatValue } from './proposers/tpe/description.js';
export type { ParameterChange } from './proposers/tpe/description.js';
export { rebuildObservations } from './proposers/tpe/observations.js';
export { prunedEstimate } from './proposers/tpe/pruned-estimate.js';
export type { Observation } from './proposers/tpe/observations.js';

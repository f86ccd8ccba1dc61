/**
 * @loop/collie/rules: the rules of seed 000 as plain functions and schemas, the same ones the
 * controller runs. For a host that checks or renders collie's files itself, or reuses a rule in
 * another loop (e.g. SC1-SC5 as core `StopPolicy`s). The controller and its contracts are in
 * `@loop/collie`.
 *
 * - File formats: triage / FIX / observation records, the run spec, the stage files, tokens.jsonl.
 * - Gates and guards: G8 / G2 confidence gates, G3 adversarial prompts, G7 no-progress check,
 *   G1 / G6 diff audit.
 * - Stage 6: the rollback matrix and the stop checks SC1-SC5.
 *
 * @packageDocumentation
 * @module @loop/collie/rules
 */
// File formats.
export {
  triageRecordSchema,
  fixRecordSchema,
  parseTriage,
  parseFixRecord,
  TRIAGE_VERDICTS,
  FIX_KINDS,
} from './records.js';
export type { TriageRecord, TriageVerdict } from './records.js';
export { issueRecordSchema, parseObservations, renderObservations } from './observations.js';
export type { IssueRecord } from './observations.js';
export { runSpecSchema, parseRunSpec, renderPlanFile, triggerTimeoutMin } from './run-spec.js';
export { renderTriage, renderFixRecord, parseDeferred } from './stage-files.js';
export { fixBatches, renderFixPlan } from './fix-plan.js';
export type { FixPlanInputs } from './fix-plan.js';
export { tokenEntrySchema, readTokensUsed } from './token-meter.js';
export type { TokenEntry } from './token-meter.js';
// Gates and guards.
export { triageGate, deepVerifyGate, routeRecords } from './confidence-gates.js';
export type { DeferredTag, DeferredItem, TriageRoute, FixRoute, GateResult } from './confidence-gates.js';
export {
  checkAdversarialPrompt,
  triagePrompt,
  deepVerifyPrompt,
  TRIAGE_PROMPT_RULE,
  DEEP_VERIFY_PROMPT_RULE,
} from './adversarial-prompt.js';
export type { AdversarialPromptRule, AdversarialPromptCheck } from './adversarial-prompt.js';
export { checkNoProgress, jaccard, bucketize } from './no-progress-check.js';
export type { NoProgressCheck } from './no-progress-check.js';
export { forbiddenTestFileChanges, untraceableFiles, DEFAULT_TEST_FILE } from './diff-audit.js';
// Stage 6.
export { decideRollback } from './rollback-matrix.js';
export type { PrimaryGoal, RollbackDecision } from './rollback-matrix.js';
export {
  sc1IterationCap,
  sc2Threshold,
  sc3Convergence,
  sc4Budget,
  sc5StuckSteps,
  stopChecks,
  evaluateStopChecks,
  collieStopState,
  STOP_CHECK_STATUS,
} from './stop-checks.js';
export type { CollieStopState, IterationFacts, TerminalStatus } from './stop-checks.js';

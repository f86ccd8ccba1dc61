/**
 * @loop/core/policies: keep policies (minimum delta, noise-aware, constraints, Pareto), stop
 * policies and stop conditions (plateau, target score, wall clock, cost budget, convergence), pruners
 * (median, patience, successive halving, Hyperband), guards (command guard, tier-1 gates), the sealed
 * holdout, and spend accounting. For hosts composing a loop's keep/stop/prune behaviour beyond
 * `strictImprovement`, `maxIterations` and `anyOf` (in `@loop/core`).
 *
 * @packageDocumentation
 * @module @loop/core/policies
 */
export { neverStop, plateau, targetScore, wallClock, onAbort } from './contracts/stop-policy.js';
export type { StopReasonCode } from './contracts/stop-policy.js';
export { minDelta } from './contracts/keep-policy.js';
export type { KeepEvidence } from './contracts/keep-policy.js';
export {
  checkConstraintExpression,
  parseConstraint,
  checkConstraints,
  constraintViolations,
  constraintMetrics,
  boundOf,
  metricsOf,
  describeViolation,
} from './policies/constraints.js';
export type {
  Constraint,
  ConstraintMode,
  ConstraintReference,
  ConstraintCheck,
  ConstraintExpressionCheck,
  MetricsSource,
} from './policies/constraints.js';
export { withConstraints, requireMetrics, toConstraints, recordedViolations } from './policies/constrained-keep.js';
export type { ConstraintInput, ConstraintVerdict, ConstraintViolationRecord } from './policies/constrained-keep.js';
export { createNoiseAwareKeepPolicy, noiseAwareKeepPolicyOptionsSchema } from './policies/noise-aware-keep-policy.js';
export type { NoiseAwareKeepPolicyOptions, NoiseAwareTest, AlphaSpending } from './policies/noise-aware-keep-policy.js';
export { lookAlpha, spentAlpha } from './policies/noise-aware-keep-policy-spending.js';
export { formatViolations, rowViolations } from './policies/constraint-violations.js';
export type { RowViolation } from './policies/constraint-violations.js';
export { spendOf, describeSpend, formatUsd, validCost } from './policies/spend.js';
export type { Spend, SpendPart } from './policies/spend.js';
export { paretoKeep, paretoKeepOptionsSchema } from './policies/pareto-keep-policy.js';
export type { ParetoKeepOptions, ParetoRecord } from './policies/pareto-keep-policy.js';
export { paretoFront } from './policies/pareto-front.js';
export type { ParetoPoint, ParetoFrontOptions } from './policies/pareto-front.js';
export { dominates, hypervolume, nonDominationRanks, objectiveLosses, totalViolation } from './policies/pareto-math.js';
export type { ConstraintsFunction, ObjectiveSpec } from './policies/pareto-math.js';
export { firstVerdict } from './contracts/guard.js';
export { tier1Gates } from './policies/tier1-gates.js';
export type { Tier1GatesOptions } from './policies/tier1-gates.js';
export { costBudget, convergence, repeatedError, noFileChanges } from './policies/stop-conditions.js';
export type { CostBudgetOptions, ConvergenceOptions } from './policies/stop-conditions.js';
export { incumbentCurvePruner, medianPruner, patiencePruner, nonFinitePruner } from './policies/pruners.js';
export type { IncumbentCurvePrunerOptions, MedianPrunerOptions, PatiencePrunerOptions } from './policies/pruners.js';
export { successiveHalvingPruner, hyperbandPruner } from './policies/successive-halving.js';
export type { SuccessiveHalvingPrunerOptions, HyperbandPrunerOptions } from './policies/successive-halving.js';
export { valueAtStep } from './contracts/pruner.js';
export type { PrunedFact } from './contracts/pruner.js';
export { createCommandGuard, commandGuardOptionsSchema } from './policies/command-guard.js';
export type { CommandGuardOptions } from './policies/command-guard.js';
export { createHoldout, holdoutOptionsSchema } from './policies/holdout.js';
export type { Holdout, HoldoutOptions, HoldoutGateOptions } from './policies/holdout.js';
export {
  appendHoldoutUse,
  holdoutFileList,
  holdoutFingerprint,
  holdoutStateDir,
  readHoldoutUses,
  HOLDOUT_USES_FILE,
} from './policies/holdout-store.js';
export type { HoldoutUse, HoldoutUseKind } from './policies/holdout-store.js';
export { checkHoldoutSeal } from './policies/holdout-seal.js';
export type { HoldoutSealInput } from './policies/holdout-seal.js';

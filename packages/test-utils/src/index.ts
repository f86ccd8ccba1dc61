/**
 * @loop/test-utils (private): fakes for unit-testing loop policies in memory (a fake harness with
 * scripted scores, a manual clock, counter proposers, deferred promises and a barrier for concurrency
 * tests) and the conformance suites every adapter runs.
 *
 * @example
 * const clock = createManualClock();
 * const harness = createFakeHarness({ scores: [10, 9, 9, 8], onRun: () => clock.advance(60_000) });
 *
 * @packageDocumentation
 */
export { createManualClock } from './manual-clock.js';
export type { ManualClock } from './manual-clock.js';
export { createFakeHarness } from './fake-harness.js';
export type { FakeHarness, FakeHarnessOptions, FakeOutcome } from './fake-harness.js';
export { createCounterProposer, createContextProposer } from './counter-proposer.js';
export { describeRollbackStrategy } from './describe-rollback-strategy.js';
export type { RollbackFixture } from './describe-rollback-strategy.js';
export { createDeferred, createBarrier } from './deferred.js';
export type { Deferred, Barrier } from './deferred.js';
export { userPolicies } from './user-policies.js';
export type { UserPolicies, UserPoliciesOptions } from './user-policies.js';
export { pidsWithEnv } from './processes.js';
export { bundleFixture } from './bundle-fixture.js';
export { undocumentedExports } from './tsdoc.js';
export { runChild, inPool } from './child-run.js';
export type { ChildResult } from './child-run.js';

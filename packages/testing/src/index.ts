/**
 * @loop/testing: the test kit for people who write loop adapters and policies. The conformance
 * suites every implementation of a core contract runs (`describeRollbackStrategy`,
 * `describeResultsLog`, `describeStateStore`, registering vitest tests: vitest is a peer
 * dependency), and fakes for testing policies in memory without a real
 * harness or real time: a fake harness with scripted scores or crashes, a manual clock, counter
 * and context proposers, deferred promises and a barrier for concurrency tests.
 *
 * @example
 * const clock = createManualClock();
 * const harness = createFakeHarness({ scores: [10, 9, 9, 8], onRun: () => clock.advance(60_000) });
 *
 * @packageDocumentation
 */
export { describeRollbackStrategy } from './describe-rollback-strategy.js';
export type { RollbackFixture } from './describe-rollback-strategy.js';
export { describeResultsLog } from './describe-results-log.js';
export type { ResultsLogFixture } from './describe-results-log.js';
export { describeStateStore } from './describe-state-store.js';
export type { StateStoreFixture } from './describe-state-store.js';
export { createFakeHarness } from './fake-harness.js';
export type { FakeHarness, FakeHarnessOptions, FakeOutcome } from './fake-harness.js';
export { createManualClock } from './manual-clock.js';
export type { ManualClock } from './manual-clock.js';
export { createCounterProposer, createContextProposer } from './counter-proposer.js';
export { createDeferred, createBarrier } from './deferred.js';
export type { Deferred, Barrier } from './deferred.js';

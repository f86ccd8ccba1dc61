/**
 * @loop/internal-test-utils (private): this repository's own test helpers (child processes and worker
 * pools, bundling a fixture, leftover-process checks, the TSDoc check, the issue-11 user
 * policies). The public test kit, the rollback conformance suite and the in-memory fakes, is
 * `@loop/testing`; it is re-exported here so the repository's tests have one import.
 *
 * @example
 * const { exports, undocumented } = undocumentedExports('packages/core/src/index.ts');
 *
 * @packageDocumentation
 */
export * from '@loop/testing';
export { userPolicies } from './user-policies.js';
export type { UserPolicies, UserPoliciesOptions } from './user-policies.js';
export { pidsWithEnv, isAlive } from './processes.js';
export { bundleFixture } from './bundle-fixture.js';
export { undocumentedExports } from './tsdoc.js';
export { runChild, inPool } from './child-run.js';
export type { ChildResult } from './child-run.js';

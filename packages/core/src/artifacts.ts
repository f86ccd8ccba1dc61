/**
 * @loop/core/artifacts: working copies for parallel candidates (memory and directory), snapshot
 * comparison helpers, the file artifact's option schema, and seed-only change detectors. For hosts that run
 * candidates in parallel or skip seed-only edits; `createFileArtifact` and `createMemoryArtifact` are in
 * `@loop/core`.
 *
 * @packageDocumentation
 * @module @loop/core/artifacts
 */
export { compareSnapshots, changeReason, isUnder, DELETED } from './contracts/artifact.js';
export { fileArtifactOptionsSchema, surfaceValue } from './artifacts/file-artifact.js';
export {
  createJsonSeedOnlyDetector,
  createSeedOnlyDetector,
  createMemorySeedOnlyDetector,
  rejectingSeedOnly,
  isSeedKey,
  isSeedOnlyJsonChange,
  isSeedOnlyTextChange,
  diffJsonKeys,
} from './artifacts/seed-only.js';
export type {
  SeedOnlyDetector,
  ProposedChanges,
  JsonSeedOnlyDetectorOptions,
  SeedOnlyDetectorOptions,
} from './artifacts/seed-only.js';
export { createMemoryWorkingCopies } from './artifacts/memory-working-copies.js';
export type { MemoryWorkingCopy } from './artifacts/memory-working-copies.js';
export {
  createDirectoryWorkingCopies,
  directoryWorkingCopiesOptionsSchema,
} from './artifacts/directory-working-copies.js';
export type { DirectoryWorkingCopiesOptions } from './artifacts/directory-working-copies.js';

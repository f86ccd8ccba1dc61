/**
 * @loop/core/process: the process layer: running a command in its own process group (with a log),
 * killing it and orphaned groups, finding processes by run token, and the bubblewrap sandbox. For hosts
 * and CLIs that run commands themselves; the command harness already uses it.
 *
 * @packageDocumentation
 * @module @loop/core/process
 */
export { runInGroup, runInGroupToLog, killGroup, describeExit } from './process/process-group.js';
export type { GroupRunOptions, GroupRunResult } from './process/process-group.js';
export { killOrphanGroup, killOrphanGroups, RUN_TOKEN_ENV, RUN_TOKENS_ENV } from './process/orphan-group.js';
export { pidsWithToken } from './process/token-scan.js';
export { bwrapArgv, planSandbox, sandboxMaskArgs, sandboxOptionsFields } from './process/sandbox.js';
export { bwrapStatus, resolveSandboxMode } from './process/bwrap-status.js';
export type { SandboxMode, SandboxOptions, SandboxPlan, SandboxSpec } from './process/sandbox.js';
export type { BwrapStatus } from './process/bwrap-status.js';
export { DEFAULT_MAX_FOLDER_ENTRIES, planSandboxBinds, sweepSandboxFolders } from './process/sandbox-folders.js';
export type { SandboxBinds, SandboxFolder, SandboxSweep } from './process/sandbox-folders.js';

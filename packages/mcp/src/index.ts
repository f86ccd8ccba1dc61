/**
 * @loop/mcp: an MCP server (stdio, `loop mcp`) for a coding agent working in an auto-iterate
 * workspace. The agent is the proposer, the loop the judge and the log: `loop_evaluate` runs the
 * configured harness on the agent's uncommitted edit and keeps it (commit) if better or reverts it
 * (tree restored), appending the row; `loop_run_iteration` runs one iteration with the configured
 * proposer; `loop_status`, `loop_rows`, `loop_diff`, `loop_log`, `loop_stop`; resources results.tsv and the
 * progress plot. The cli functions it runs on (`prepareRun`, `loop diff`, the plot) are passed in.
 *
 * @example
 * import * as cli from '@loop/cli';
 * import { serveLoopMcp } from '@loop/mcp';
 *
 * await serveLoopMcp({ dir: '/path/to/workspace', host: cli });
 *
 * @packageDocumentation
 */
export { createLoopMcpServer, serveLoopMcp, LOOP_MCP_TOOLS, LOOP_MCP_RESOURCES } from './server.js';
export type { LoopMcpServerOptions } from './server.js';
export { createLoopWorkspace } from './workspace.js';
export { McpToolError } from './errors.js';
export type { LoopWorkspace, LoopWorkspaceOptions } from './workspace.js';
export { LOG_TAIL_BYTES } from './hosted-session.js';
export type { StepResult } from './hosted-session.js';
export { agentChanges, isUnderTargets, HELD_EDIT_REF } from './held-edit.js';
export type { AgentChange } from './held-edit.js';
export { ROW_KINDS } from './host.js';
export type {
  LoopMcpHost,
  HostLoadedConfig,
  HostConfiguredRun,
  HostSummary,
  HostResultsData,
  HostLogEntry,
  HostPointKind,
} from './host.js';
export type { HostHostedLoop, HostTrial, HostStepOutcome, HostRecord, HostEvent, HostIterationLog } from './host.js';

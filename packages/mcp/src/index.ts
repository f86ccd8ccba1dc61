/**
 * @loop/mcp: an MCP server (stdio, `loop mcp`) for a coding agent working in an auto-iterate
 * workspace. The agent is the proposer, the loop the judge and the log: `loop_evaluate` runs the
 * configured harness on the agent's uncommitted edit and keeps it (commit) if better or reverts it
 * (tree restored), appending the row; `loop_run_iteration` runs one iteration with the configured
 * proposer; `loop_status`, `loop_rows`, `loop_diff`, `loop_log`, `loop_stop`; resources results.tsv and the
 * progress plot. The cli functions it runs on (`prepareRun`, `loop diff`, the plot) are passed in
 * as a {@link LoopMcpHost} (`@loop/cli`'s `loopMcpHost`); the workspace, the held edit and the
 * hosted session behind the tools are not part of this entry.
 *
 * @example
 * import { loopMcpHost } from '@loop/cli';
 * import { serveLoopMcp } from '@loop/mcp';
 *
 * await serveLoopMcp({ dir: '/path/to/workspace', host: loopMcpHost });
 *
 * @packageDocumentation
 */
export { createLoopMcpServer, serveLoopMcp, LOOP_MCP_TOOLS, LOOP_MCP_RESOURCES } from './server.js';
export type { LoopMcpServerOptions } from './server.js';
// The host contract: what the server needs from the cli, and the shapes its members take and give.
export type {
  LoopMcpHost,
  HostLoadedConfig,
  HostConfiguredRun,
  HostSummary,
  HostResultsData,
  HostLogEntry,
  HostPointKind,
  HostHostedLoop,
  HostTrial,
  HostStepOutcome,
  HostRecord,
  HostEvent,
  HostIterationLog,
} from './host.js';

import type { LoopMcpHost } from '@loop/mcp';
import { writeStarterConfig } from './starter-config.js';
import { findConfigFile, loadConfig, parseConfigText } from './load-config.js';
import { diffIteration } from './read/diff.js';
import { logEntries } from './read/log.js';
import { withRowMetrics } from './read/row-metrics.js';
import { readResultsOf, resolveResultsSource } from './read/results-source.js';
import { readIterationLog } from './read/run-log.js';
import { renderPlotSvg } from './report/plot.js';
import { inferDirection } from './report/results.js';
import { prepareRun } from './prepare-run.js';
import { isLocked } from '@loop/core/files';
import { lockPath, readStatus } from './workspace-status.js';

/**
 * The cli functions the MCP server of `@loop/mcp` runs on (`loop mcp` loads this module at the
 * server's first tool call that needs them): config loading and the starter config, `prepareRun`,
 * `loop status`, `loop log`, `loop diff`, the run logs and the progress plot.
 *
 * @example
 * import { loopMcpHost } from '@loop/cli';
 * import { serveLoopMcp } from '@loop/mcp';
 *
 * await serveLoopMcp({ dir: '/path/to/workspace', host: loopMcpHost });
 */
export const loopMcpHost: LoopMcpHost = {
  findConfigFile,
  loadConfig,
  parseConfigText,
  writeStarterConfig,
  prepareRun,
  readStatus,
  isWorkspaceLocked: async (dir) =>
    Promise.resolve()
      .then(() => isLocked(lockPath(dir)))
      .catch(() => false),
  resolveResultsSource,
  readResultsOf,
  logEntries,
  withRowMetrics,
  diffIteration,
  inferDirection,
  renderPlotSvg,
  readIterationLog,
};

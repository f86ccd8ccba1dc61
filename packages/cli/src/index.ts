/**
 * @loop/cli: the `loop` command (init, run, resume, status, log, diff, report, dashboard, mcp,
 * holdout, worker, and `loop collie` for the collie autoiter pipeline; presets auto-iterate,
 * autoresearch, autotune and collie). What a host embeds: the command itself (`runCli`), the
 * config types and loaders, the run a config describes (`prepareRun`), where a run stands, the
 * progress plot and report, the dashboard server and the functions the MCP server runs on.
 * Everything else (the reporters, the read commands, the presets' pieces) stays behind it.
 *
 * @example
 * import { loadConfig, prepareRun, renderPlotSvg, parseResults } from '@loop/cli';
 *
 * const loaded = await loadConfig('/path/to/loop.config.yaml'); // errors name file:line: field
 * const { run } = prepareRun(loaded, { resume: false });
 * const summary = await run.run();
 * const svg = await renderPlotSvg(parseResults(resultsText), { direction: summary.direction });
 *
 * @packageDocumentation
 */

// The command.
export { runCli, CLI_VERSION } from './cli.js';
export type { CliIo } from './cli-io.js';
export { EXIT_CODES } from './exit-codes.js';
export type { ExitCode } from './exit-codes.js';

// The config of `loop run` (preset auto-iterate) and its loaders.
export { loopConfigSchema, loopConfigJsonSchema } from './config.js';
export type { LoopConfig, LoopConfigInput } from './config.js';
export { defineConfig, loadConfig, findConfigFile, parseConfigText, DEFAULT_CONFIG_FILES } from './load-config.js';
export type { LoadedConfig } from './load-config.js';
export { ConfigFileError } from './config-file-error.js';
export type { ConfigFileIssue } from './config-file-error.js';
export { writeStarterConfig } from './starter-config.js';
export type { Preset } from './starter-config.js';
export type { AutoresearchPresetConfig } from './presets/autoresearch-config.js';
export type { AutotunePresetConfig } from './presets/autotune-config.js';

// The config of `loop collie`.
export { loadCollieConfig, collieAutoiterOptions } from './collie/load.js';
export type { LoadedCollieConfig, CollieHost } from './collie/load.js';
export type { CollieConfig, CollieConfigInput } from './collie/config.js';

// A run, where it stands, and its report.
export { prepareRun } from './prepare-run.js';
export type { ConfiguredRun, PrepareRunOptions } from './prepare-run.js';
export { readStatus, formatStatus, lockPath } from './workspace-status.js';
export type { WorkspaceStatus, RunStateFile } from './workspace-status.js';
export { parseResults } from './report/results.js';
export type { ResultsData } from './report/results.js';
export { renderPlotSvg } from './report/plot.js';
export type { PlotOptions } from './report/plot.js';
export { writeReport } from './report/write-report.js';
export type { WriteReportOptions, WrittenReport } from './report/write-report.js';

// The dashboard and the MCP server's host.
export { startDashboard } from './dashboard/server.js';
export type { DashboardOptions, Dashboard } from './dashboard/server.js';
export { loopMcpHost } from './mcp-host.js';

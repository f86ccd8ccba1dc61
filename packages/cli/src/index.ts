/**
 * @loop/cli: the `loop` command (init, run, resume, status, report, and `loop collie` for the
 * collie autoiter pipeline) and its building blocks, for tools that want the same config files,
 * status text or progress plot.
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
export { loopConfigSchema, mutatorProposerSchema, agentProposerSchema, loopConfigJsonSchema } from './config.js';
export type { LoopConfig, LoopConfigInput } from './config.js';
export { loadConfig, loadConfigModule, parseConfigText, findConfigFile, defineConfig, ConfigFileError, DEFAULT_CONFIG_FILES, MODULE_CONFIG_EXTENSIONS } from './load-config.js';
export { parseConfigTextOf, loadConfigModuleOf, loadConfigFileOf, LOOP_CONFIG_KIND } from './load-config.js';
export type { LoadedConfig, ConfigFileIssue, ConfigKind } from './load-config.js';
export { collieConfigSchema, collieAgentConfigSchema, collieFlowConfigSchema, collieConfigJsonSchema } from './collie/config.js';
export type { CollieConfig, CollieConfigInput } from './collie/config.js';
export { loadCollieConfig, findCollieConfigFile, collieAutoiterOptions, COLLIE_CONFIG_FILES, COLLIE_CONFIG_KIND } from './collie/load.js';
export type { LoadedCollieConfig, CollieHost } from './collie/load.js';
export { readCollieStatus, formatCollieStatus } from './collie/status.js';
export type { CollieStatus } from './collie/status.js';
export { collieStarterConfig, writeCollieStarterConfig, COLLIE_SCHEMA_HINT } from './collie/init.js';
export { addCollieCommands } from './collie/command.js';
export { starterConfig, writeStarterConfig, PRESETS, SCHEMA_HINT } from './init.js';
export type { Preset } from './init.js';
export { prepareRun, defaultTag, CLI_STATE_FILE, REPORTED_EVENTS } from './run.js';
export type { ConfiguredRun, PrepareRunOptions } from './run.js';
export { EXIT_CODES, exitCodeForError, exitCodeForSummary } from './exit-codes.js';
export type { ExitCode } from './exit-codes.js';
export { createPlainReporter, createTtyReporter, formatProgress, formatDuration, initialProgress, updateProgress } from './progress.js';
export type { ProgressState, Reporter, ReporterOptions } from './progress.js';
export { readStatus, formatStatus, lockPath } from './status.js';
export type { RunStatus, RunStateFile } from './status.js';
export { parseResults, inferDirection, runningBest } from './report/results.js';
export type { PlotPoint, PointKind, ResultsData } from './report/results.js';
export { plotSpec, renderPlotSvg, countPoints, PLOT_COLORS } from './report/plot.js';
export type { PlotOptions } from './report/plot.js';
export { renderReportHtml, escapeHtml } from './report/html.js';
export type { ReportHtmlOptions } from './report/html.js';
export { writeReport, resolveDirection } from './report/report.js';
export type { WriteReportOptions, WrittenReport } from './report/report.js';
export { runCli, createProgram, CLI_VERSION } from './cli.js';
export type { CliIo } from './cli.js';

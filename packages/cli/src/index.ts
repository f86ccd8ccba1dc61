/**
 * @loop/cli: the `loop` command (init, run, resume, status, log, diff, report, and `loop collie`
 * for the collie autoiter pipeline; presets auto-iterate, autoresearch, autotune and collie) and its building blocks, for tools that want the same config files,
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
export {
  loadConfig,
  loadConfigModule,
  parseConfigText,
  findConfigFile,
  defineConfig,
  ConfigFileError,
  DEFAULT_CONFIG_FILES,
  MODULE_CONFIG_EXTENSIONS,
} from './load-config.js';
export { parseConfigTextOf, loadConfigModuleOf, loadConfigFileOf, LOOP_CONFIG_KIND } from './load-config.js';
export type { LoadedConfig, ConfigFileIssue, ConfigKind } from './load-config.js';
export {
  collieConfigSchema,
  collieAgentConfigSchema,
  collieFlowConfigSchema,
  collieConfigJsonSchema,
} from './collie/config.js';
export type { CollieConfig, CollieConfigInput } from './collie/config.js';
export {
  loadCollieConfig,
  findCollieConfigFile,
  collieAutoiterOptions,
  COLLIE_CONFIG_FILES,
  COLLIE_CONFIG_KIND,
} from './collie/load.js';
export type { LoadedCollieConfig, CollieHost } from './collie/load.js';
export { readCollieStatus, formatCollieStatus } from './collie/status.js';
export type { CollieStatus } from './collie/status.js';
export { collieStarterConfig, writeCollieStarterConfig, COLLIE_SCHEMA_HINT } from './collie/init.js';
export { addCollieCommands } from './collie/command.js';
export {
  starterConfig,
  writeStarterConfig,
  initNextSteps,
  isFromClone,
  cloneRootOf,
  PRESETS,
  PRESET_NEXT_STEP,
  SCHEMA_HINT,
} from './starter-config.js';
export { schemaRefFor, shippedSchemaPath, SHIPPED_SCHEMA_FILES } from './schema-ref.js';
export type { SchemaKind } from './schema-ref.js';
export type { Preset } from './starter-config.js';
export { prepareRun, defaultTag, CLI_STATE_FILE, REPORTED_EVENTS } from './run.js';
export type { ConfiguredRun, PrepareRunOptions } from './run.js';
export { EXIT_CODES, exitCodeForError, exitCodeForSummary } from './exit-codes.js';
export type { ExitCode } from './exit-codes.js';
export {
  createPlainReporter,
  createTtyReporter,
  formatProgress,
  formatDuration,
  initialProgress,
  updateProgress,
  countResultsRows,
} from './progress.js';
export type { ProgressState, ProgressCounts, Reporter, ReporterOptions } from './progress.js';
export { readStatus, formatStatus, lockPath } from './workspace-status.js';
export type { WorkspaceStatus, RunStateFile } from './workspace-status.js';
export { parseResults, inferDirection, runningBest } from './report/results.js';
export type { PlotPoint, PointKind, ResultsData } from './report/results.js';
export { plotSpec, renderPlotSvg, countPoints, PLOT_COLORS } from './report/plot.js';
export type { PlotOptions } from './report/plot.js';
export { renderReportHtml, escapeHtml } from './report/html.js';
export type { ReportHtmlOptions } from './report/html.js';
export {
  writeReport,
  writeMultiRunReport,
  resolveDirection,
  runDirOf,
  recordedMetricName,
} from './report/write-report.js';
export type { WriteReportOptions, WrittenReport, WriteMultiRunReportOptions } from './report/write-report.js';
export { multiRunPlotSpec, renderMultiRunPlotSvg } from './report/multi-plot.js';
export type { PlotRun, MultiRunPlotOptions } from './report/multi-plot.js';
export { formatScore } from './report/plot.js';
export { logEntries, formatLog, toCsv, LOG_STATUSES } from './read/log.js';
export { withRowMetrics, formatMetrics } from './read/row-metrics.js';
export type { RowMetrics, RowViolation } from './read/row-metrics.js';
export type { LogEntry } from './read/log.js';
export { diffIteration } from './read/diff.js';
export { readIterationLog, keptRunLogs } from './read/run-log.js';
export type { IterationLog } from './read/run-log.js';
export type { IterationDiff } from './read/diff.js';
export { resolveResultsSource, readResultsOf } from './read/results-source.js';
export type { ResultsSource } from './read/results-source.js';
export { keepSchema, keepOptions, KEEP_POLICIES } from './keep-config.js';
export type { KeepConfig } from './keep-config.js';
export { notifySchema, createNotifier, createNotifyRules, NOTIFY_EVENTS } from './notify.js';
export type { NotifyConfig, NotifyEvent, Notification, Notifier } from './notify.js';
export { RUN_FLAGS, addRunFlags, flagOverrides } from './run-flags.js';
export { applyRunFlags } from './apply-run-flags.js';
export type { RunFlag } from './run-flags.js';
export { createInterruptHandler } from './interrupt.js';
export type { InterruptOptions } from './interrupt.js';
export { createWriteGate, gateRollbackWrites, ROLLBACK_WRITE_METHODS } from './write-gate.js';
export type { WriteGate } from './write-gate.js';
export { UsageError, isUsageError } from './usage-error.js';
export { detectPreset } from './presets/detect.js';
export type { ConfigPreset } from './presets/detect.js';
export {
  autoresearchPresetSchema,
  autoresearchPresetJsonSchema,
  AUTORESEARCH_CONFIG_KIND,
} from './presets/autoresearch-config.js';
export type { AutoresearchPresetConfig } from './presets/autoresearch-config.js';
export { createCommandPassProposer, passPrompt } from './presets/autoresearch-proposer.js';
export type { CommandPassProposerOptions } from './presets/autoresearch-proposer.js';
export { runAutoresearchPreset, autoresearchResultsFile } from './presets/autoresearch-run.js';
export type { RunAutoresearchPresetOptions } from './presets/autoresearch-run.js';
export {
  autotunePresetSchema,
  autotunePresetJsonSchema,
  autotuneStarterConfig,
  AUTOTUNE_CONFIG_KIND,
} from './presets/autotune-config.js';
export type { AutotunePresetConfig } from './presets/autotune-config.js';
export { createCommandRoundWorker, createCommandSyncCheck, parseEvaluation } from './presets/autotune-worker.js';
export type { CommandRoundWorkerOptions } from './presets/autotune-worker.js';
export { autoresearchStarterConfig } from './presets/autoresearch-init.js';
export { runCli, createProgram, CLI_VERSION } from './cli.js';
export type { CliIo } from './cli-io.js';
export { startDashboard } from './dashboard/server.js';
export type { DashboardOptions, Dashboard } from './dashboard/server.js';

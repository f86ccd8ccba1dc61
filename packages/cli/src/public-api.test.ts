// The names @loop/cli's entry exports, values and types (issue 30: a lean surface; 178 before). A
// host embeds the command (runCli), the config types and loaders, prepareRun, the status and the
// report, the dashboard and the MCP host; everything else stays behind the entry.
import { fileURLToPath } from 'node:url';
import { undocumentedExports } from '@loop/internal-test-utils';
import { describe, expect, it } from 'vitest';

const ENTRY = fileURLToPath(new URL('./index.ts', import.meta.url));

describe('the public entry of @loop/cli', () => {
  it('the public entry exports exactly these names (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(ENTRY);
    expect([...exports].sort()).toEqual([
      'AutoresearchPresetConfig',
      'AutotunePresetConfig',
      'CLI_VERSION',
      'CliIo',
      'CollieConfig',
      'CollieConfigInput',
      'CollieHost',
      'ConfigFileError',
      'ConfigFileIssue',
      'ConfiguredRun',
      'DEFAULT_CONFIG_FILES',
      'Dashboard',
      'DashboardOptions',
      'EXIT_CODES',
      'ExitCode',
      'LoadedCollieConfig',
      'LoadedConfig',
      'LoopConfig',
      'LoopConfigInput',
      'PlotOptions',
      'PrepareRunOptions',
      'Preset',
      'ResultsData',
      'RunStateFile',
      'WorkspaceStatus',
      'WriteReportOptions',
      'WrittenReport',
      'collieAutoiterOptions',
      'defineConfig',
      'findConfigFile',
      'formatStatus',
      'loadCollieConfig',
      'loadConfig',
      'lockPath',
      'loopConfigJsonSchema',
      'loopConfigSchema',
      'loopMcpHost',
      'parseConfigText',
      'parseResults',
      'prepareRun',
      'readStatus',
      'renderPlotSvg',
      'runCli',
      'startDashboard',
      'writeReport',
      'writeStarterConfig',
    ]);
    expect(undocumented).toEqual([]);
  });
});

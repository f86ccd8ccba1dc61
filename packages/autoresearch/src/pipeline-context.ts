import { join } from 'node:path';
import { LoopError } from '@loop/core';
import { readJson } from '@loop/core/files';
import { resolvePassConfig, type PassConfig } from './config.js';
import type { SafetyCriticalFlow } from './safety.js';
import type { AutoresearchMode } from './statuses.js';

/** The placeholders the runner needs (seed 002 Placeholders table), resolved. */
export interface PipelineContext {
  /** {{WORKSPACE}}: the repo root. */
  readonly workspace: string;
  /** {{TASK_ID}}: names the results directory. */
  readonly taskId: string;
  /** {{CRITICALITY_PROFILE}}, when set. */
  readonly criticalityProfile?: string;
  /**
   * {{SAFETY_CRITICAL_FLOWS}}: flows requiring ASK-before-edit (names, or `{ name, files }` with path globs); pass to
   * `runPass({ safety: { flows } })`. @default []
   */
  readonly safetyCriticalFlows: readonly SafetyCriticalFlow[];
  /** {{TEST_COMMAND}}: `config.test_commands.unit`, when set (function mode needs it). */
  readonly testCommand?: string;
  /** {{MIN_COVERAGE}}: `config.thresholds.min_coverage_percent`. @default 0 */
  readonly minCoveragePct: number;
  /** `config.cost_limits.max_per_run_usd`, when set. */
  readonly maxPerRunUsd?: number;
  /** {{RECORD_FILE}}: `.aid/pipeline/autoresearch/<TASK_ID>/results.tsv`, absolute. */
  readonly recordFile: string;
  /** The pass settings from `config.autoresearch` (kpi_target → {{KPI_TARGET}}, caps). */
  readonly pass: PassConfig;
  /** One line per absent value and the default taken: state them in chat (standalone use). */
  readonly assumptions: readonly string[];
}

/**
 * Fills the placeholders from `<workspace>/.aid/context.json` and `<workspace>/.aid/pipeline/config.json`
 * (seed 002: pipeline use, and standalone use where an absent value takes the documented default and
 * says so in `assumptions`). A missing file counts as empty.
 *
 * @throws {LoopError} `CONFIG_INVALID` when no task id is known (context.json `task_id`, or `taskId` given);
 *   {@link ConfigError} for an invalid `config.autoresearch`; `STATE_CORRUPT` for a file that is not JSON.
 */
export async function loadPipelineContext(
  workspace: string,
  mode: AutoresearchMode,
  overrides: { taskId?: string } = {},
): Promise<PipelineContext> {
  const ctx = ((await readJson(join(workspace, '.aid/context.json'))) ?? {}) as Record<string, unknown>;
  const cfg = ((await readJson(join(workspace, '.aid/pipeline/config.json'))) ?? {}) as Record<string, unknown>;
  const assumptions: string[] = [];
  const taskId = overrides.taskId ?? (typeof ctx.task_id === 'string' ? ctx.task_id : undefined);
  if (!taskId) {
    throw new LoopError(
      'CONFIG_INVALID',
      `[loop] [autoresearch] no task id: set task_id in ${join(workspace, '.aid/context.json')} or pass taskId`,
      { details: { field: 'task_id' } },
    );
  }
  const obj = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});
  const pass = resolvePassConfig(mode, cfg.autoresearch ?? {});
  assumptions.push(...pass.assumptions);
  const testCommand = obj(cfg.test_commands).unit;
  if (mode === 'function' && typeof testCommand !== 'string')
    assumptions.push(
      'config.test_commands.unit is absent: function mode needs a test command; pass one to createTestGate',
    );
  const minCov = obj(cfg.thresholds).min_coverage_percent;
  if (typeof minCov !== 'number')
    assumptions.push('config.thresholds.min_coverage_percent is absent: using the default 0 (no coverage minimum)');
  const maxUsd = obj(cfg.cost_limits).max_per_run_usd;
  if (typeof maxUsd !== 'number') assumptions.push('config.cost_limits.max_per_run_usd is absent: no cost brake');
  const flows: SafetyCriticalFlow[] = [];
  for (const f of Array.isArray(ctx.safety_critical_flows) ? (ctx.safety_critical_flows as unknown[]) : []) {
    if (typeof f === 'string') flows.push(f);
    else if (f && typeof f === 'object' && typeof (f as { name?: unknown }).name === 'string') {
      const files = (f as { files?: unknown }).files;
      flows.push({
        name: (f as { name: string }).name,
        ...(Array.isArray(files) ? { files: files.filter((x): x is string => typeof x === 'string') } : {}),
      });
    }
  }
  if (!Array.isArray(ctx.safety_critical_flows))
    assumptions.push('context.json safety_critical_flows is absent: no edit is asked before it is applied');
  const profile =
    typeof ctx.criticality_profile === 'string'
      ? ctx.criticality_profile
      : typeof cfg.criticality_profile === 'string'
        ? cfg.criticality_profile
        : undefined;
  return {
    workspace: typeof ctx.workspace === 'string' ? ctx.workspace : workspace,
    taskId,
    ...(profile ? { criticalityProfile: profile } : {}),
    safetyCriticalFlows: flows,
    ...(typeof testCommand === 'string' ? { testCommand } : {}),
    minCoveragePct: typeof minCov === 'number' ? minCov : 0,
    ...(typeof maxUsd === 'number' ? { maxPerRunUsd: maxUsd } : {}),
    recordFile: join(workspace, '.aid/pipeline/autoresearch', taskId, 'results.tsv'),
    pass,
    assumptions,
  };
}

import { join } from 'node:path';
import {
  createDesignPassHarness,
  createFunctionPassHarness,
  createReflectionScorer,
  createTestGate,
  resolvePassConfig,
  runPass,
  type PassResult,
} from '@loop/autoresearch';
import type { AutoresearchPresetConfig } from './autoresearch-config.js';
import { passConfigInput } from './autoresearch-config.js';
import { createCommandPassProposer } from './autoresearch-proposer.js';

/** The argv that runs a shell command string (the autoresearch pieces take argv). */
const sh = (command: string): string[] => ['/bin/sh', '-c', command];

/**
 * The pass's run folder and results.tsv, relative to the workspace (seed 002: `.aid/pipeline/autoresearch/<TASK_ID>/`).
 */
export function autoresearchResultsFile(config: Pick<AutoresearchPresetConfig, 'taskId'>): string {
  return join('.aid', 'pipeline', 'autoresearch', config.taskId, 'results.tsv');
}

/** Options of {@link runAutoresearchPreset}. */
export interface RunAutoresearchPresetOptions {
  /** The validated config. */
  config: AutoresearchPresetConfig;
  /** The absolute workspace. */
  dir: string;
  /** Each chat line and the stop summary. */
  output: (line: string) => void;
  /** Ctrl-C: the pass stops and restores its best snapshot. */
  signal?: AbortSignal;
}

/**
 * Runs one seed 002 pass of a `preset: autoresearch` config through `runPass`: the commands as
 * the test gate (`createTestGate`), the reflection scorer (`createReflectionScorer`) and the
 * proposer ({@link createCommandPassProposer}); the snapshot rollback by default. A second call
 * on the same workspace resumes from results.tsv (runPass's own resume: no re-baseline).
 *
 * @throws {LoopError} from `runPass`: `LOCK_HELD`, `CONFIG_INVALID`, `NOT_A_REPOSITORY`, ...
 */
export async function runAutoresearchPreset(options: RunAutoresearchPresetOptions): Promise<PassResult> {
  const { config: c, dir } = options;
  const dimensions = c.reflection.dimensions ?? (c.mode === 'function' ? ['quality'] : undefined);
  const reflection = createReflectionScorer({
    workspace: dir,
    command: sh(c.reflection.command),
    promptFile: c.reflection.promptFile,
    dimensions: dimensions ?? ['structural_health', 'loudness_of_failures', 'naming_clarity', 'docs_traceability'],
    timeoutMs: c.reflection.timeoutS * 1000,
  });
  const harness =
    c.mode === 'function'
      ? createFunctionPassHarness({
          reflection,
          gates: createTestGate({
            workspace: dir,
            command: sh(c.gate!.command),
            minCoveragePct: c.gate!.minCoveragePct,
            timeoutMs: c.gate!.timeoutS * 1000,
          }),
        })
      : createDesignPassHarness({ reflection, ...(dimensions ? { dimensions } : {}) });
  return runPass({
    workspace: dir,
    taskId: c.taskId,
    config: resolvePassConfig(c.mode, passConfigInput(c)),
    harness,
    proposer: createCommandPassProposer({
      workspace: dir,
      command: c.proposer.command,
      ...(c.proposer.planCommand ? { planCommand: c.proposer.planCommand } : {}),
      goal: c.proposer.goal,
      timeoutMs: c.proposer.timeoutS * 1000,
      ...(options.signal ? { signal: options.signal } : {}),
    }),
    rubricFiles: c.rubricFiles.map((f) => join(dir, f)),
    harnessFiles: c.harnessFiles.map((f) => join(dir, f)),
    ...(c.files ? { files: c.files } : {}),
    output: options.output,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

import { type Guard, type Harness, type KeepPolicy } from '@loop/core';
import { parseGroupedOptions } from '@loop/core/contracts';
import { z } from 'zod';
import { type SandboxOptions } from '@loop/core/process';
import type { AuditGuard } from './audit-guard.js';
import type { AutoiterOptions, TriggerRun } from './autoiter-options.js';

/**
 * The flat option names of version 0.1, still accepted for one version. Each is normalised into
 * its group by {@link normalizeAutoiterOptions}; giving a flat name and its grouped place at once
 * is `CONFIG_INVALID`. (The flat `stop: StopPolicy | StopPolicy[]` is typed on
 * {@link AutoiterOptions.stop}: now `stop.policy`.)
 */
export interface DeprecatedAutoiterOptions {
  /** @deprecated use `files.stateRoot` */
  stateRoot?: string;
  /** @deprecated use `score.scalarExtraction` */
  scalarExtraction?: string;
  /** @deprecated use `stop.maxIterations` */
  maxIterations?: number;
  /** @deprecated use `stop.maxTokens` */
  maxTokens?: number | 'unlimited';
  /** @deprecated use `stop.maxWallclockMin` */
  maxWallclockMin?: number | 'unlimited';
  /** @deprecated use `run.createHarness` */
  createHarness?: (run: TriggerRun) => Harness;
  /** @deprecated use `parallel.deepVerify` */
  deepVerifyConcurrency?: number;
  /** @deprecated use `run.blockingPatterns` */
  blockingPatterns?: string[];
  /** @deprecated use `run.monitorIntervalMs` */
  monitorIntervalMs?: number;
  /** @deprecated use `run.killGraceMs` */
  killGraceMs?: number;
  /** @deprecated use `keep.guards` */
  guards?: (AuditGuard | Guard)[];
  /** @deprecated use `keep.policy` */
  keepPolicy?: KeepPolicy;
  /** @deprecated use `stop.policyStatus` */
  userStopStatus?: 'converged' | 'budget_exhausted' | 'escalated';
  /** @deprecated use `run.sandbox` */
  triggerSandbox?: SandboxOptions;
  /** @deprecated use `recovery.lockStaleMs` */
  lockStaleMs?: number;
}

/** Each deprecated flat name and its place: `[group, field]`. */
export const DEPRECATED_OPTION_PLACES: Readonly<Record<string, readonly [string, string]>> = {
  stateRoot: ['files', 'stateRoot'],
  scalarExtraction: ['score', 'scalarExtraction'],
  maxIterations: ['stop', 'maxIterations'],
  maxTokens: ['stop', 'maxTokens'],
  maxWallclockMin: ['stop', 'maxWallclockMin'],
  createHarness: ['run', 'createHarness'],
  deepVerifyConcurrency: ['parallel', 'deepVerify'],
  blockingPatterns: ['run', 'blockingPatterns'],
  monitorIntervalMs: ['run', 'monitorIntervalMs'],
  killGraceMs: ['run', 'killGraceMs'],
  guards: ['keep', 'guards'],
  keepPolicy: ['keep', 'policy'],
  userStopStatus: ['stop', 'policyStatus'],
  triggerSandbox: ['run', 'sandbox'],
  lockStaleMs: ['recovery', 'lockStaleMs'],
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** True when `stop` is the flat form: a core `StopPolicy` (it has `check`) or a list of them. */
function isFlatStop(stop: unknown): boolean {
  return Array.isArray(stop) || (isRecord(stop) && typeof stop.check === 'function');
}

/**
 * Moves every deprecated flat option of `options` into its group (the one place the flat names of
 * version 0.1 are read), with core's grouped-options mover; a flat `stop` policy becomes `stop.policy`.
 * Anything else (unknown keys included) is passed through for the schema to judge.
 *
 * @throws {ConfigError} `CONFIG_INVALID` naming both when a flat name and its grouped place are
 *   both set (e.g. `maxIterations` and `stop.maxIterations`).
 */
export function normalizeAutoiterOptions(options: AutoiterOptions): AutoiterOptions {
  if (!isRecord(options)) return options;
  const input = isFlatStop(options.stop) ? { ...options, stop: { policy: options.stop } } : options;
  return parseGroupedOptions(z.unknown(), input, DEPRECATED_OPTION_PLACES, 'collie').grouped as AutoiterOptions;
}

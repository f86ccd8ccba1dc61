import { ConfigError, type Guard, type Harness, type KeepPolicy } from '@loop/core';
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
 * version 0.1 are read) and returns the grouped options; anything else (unknown keys included) is
 * passed through for the schema to judge. A group given as a non-object is left for the schema too.
 *
 * @throws {ConfigError} `CONFIG_INVALID` naming both when a flat name and its grouped place are
 *   both set (e.g. `maxIterations` and `stop.maxIterations`).
 */
export function normalizeAutoiterOptions(options: AutoiterOptions): AutoiterOptions {
  if (!isRecord(options)) return options;
  const out: Record<string, unknown> = { ...options };
  const conflicts: { path: string; message: string }[] = [];
  const groups: Record<string, Record<string, unknown>> = {};
  const groupOf = (name: string): Record<string, unknown> | undefined => {
    if (groups[name]) return groups[name];
    const given = out[name];
    if (given !== undefined && !isRecord(given)) return undefined;
    return (groups[name] = { ...(given ?? {}) });
  };
  const move = (flat: string, group: string, field: string, value: unknown) => {
    delete out[flat];
    const g = groupOf(group);
    if (!g) return;
    if (g[field] !== undefined) {
      conflicts.push({
        path: flat,
        message:
          `${flat} and ${group}.${field} are both set; remove ${flat} (deprecated: ` +
          `its place is ${group}.${field})`,
      });
      return;
    }
    g[field] = value;
  };
  if (out.stop !== undefined && isFlatStop(out.stop)) {
    const policy = out.stop;
    delete out.stop;
    move('stop', 'stop', 'policy', policy);
  }
  for (const [flat, [group, field]] of Object.entries(DEPRECATED_OPTION_PLACES))
    if (out[flat] !== undefined) move(flat, group, field, out[flat]);
  if (conflicts.length > 0) throw new ConfigError('collie', conflicts);
  return { ...out, ...groups } as unknown as AutoiterOptions;
}

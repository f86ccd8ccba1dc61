import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import {
  systemClock,
  type Clock,
  type Guard,
  type Harness,
  type KeepPolicy,
  type MaybePromise,
  type StopPolicy,
} from '@loop/core';
import { sandboxOptionsFields } from '@loop/core/process';
import { z } from 'zod';
import type { Agent } from './agent.js';
import type { AuditGuard } from './audit-guard.js';
import type { TaskTrackerRun, TriggerRun } from './autoiter-options.js';
import type { FlowExecutor } from './flow-executor.js';
import type { RunEndNotifier } from './run-end-notifier.js';
import type { Preparer } from './preparer.js';
import type { RunSpecAsker } from './run-spec-asker.js';
import type { TaskTracker } from './task-tracker.js';
import type { Workspace } from './workspace.js';

const fn = <T>(what: string) => z.custom<T>((v) => typeof v === 'function', `${what} must be a function`);
const obj = <T>(what: string) => z.custom<T>((v) => typeof v === 'object' && v !== null, `${what} must be an object`);
const objOrFn = <T>(what: string) =>
  z.custom<T>(
    (v) => typeof v === 'function' || (typeof v === 'object' && v !== null),
    `${what} must be an object or a function`,
  );
const abs = (what: string) => z.string().refine((p) => isAbsolute(p), `${what} must be an absolute path`);
const limit = z.union([z.literal('unlimited'), z.number().positive()]);
const regex = z.string().refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, 'must be a valid regular expression');
const stopPolicy = (message: string) =>
  z.custom<StopPolicy>(
    (v) => typeof v === 'object' && v !== null && typeof (v as StopPolicy).check === 'function',
    message,
  );
const guard = z.union([
  z.object({
    id: z.string().regex(/^[A-Za-z0-9]+$/, 'id must be letters and digits'),
    name: z.string().min(1),
    check: fn<AuditGuard['check']>('check'),
  }),
  z.custom<Guard>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      typeof (v as Guard).name === 'string' &&
      ['beforeEdit', 'beforeRun', 'afterScore'].some((h) => typeof (v as Record<string, unknown>)[h] === 'function'),
    'a guard is an audit guard { id, name, check } or a core Guard { name, beforeEdit / beforeRun / afterScore }',
  ),
]);

/**
 * zod schema of the grouped {@link AutoiterOptions} (after {@link normalizeAutoiterOptions} moved
 * any deprecated flat name into its group). Every object is strict: an unknown (misspelt) key is
 * `CONFIG_INVALID`. Groups left out get their defaults.
 */
export const autoiterOptionsSchema = z
  .object({
    projectId: z.string().regex(/^[\w.-]+$/, 'projectId must be letters, digits, dot, dash or underscore'),
    sessionId: z.string().regex(/^[\w.-]+$/, 'sessionId must be letters, digits, dot, dash or underscore'),
    projectDir: abs('projectDir'),
    task: z.string().min(1, 'task must not be empty'),
    agent: obj<Agent>('agent'),
    asker: obj<RunSpecAsker>('asker'),
    workspace: obj<Workspace>('workspace').optional(),
    preparer: obj<Preparer>('preparer').optional(),
    notifier: obj<RunEndNotifier>('notifier').optional(),
    escalate: fn<(reason: string, id: string) => MaybePromise<void>>('escalate').optional(),
    flow: objOrFn<FlowExecutor | ((agent: Agent) => FlowExecutor)>('flow').optional(),
    tasks: objOrFn<TaskTracker | ((run: TaskTrackerRun) => TaskTracker)>('tasks').optional(),
    files: z
      .object({ stateRoot: abs('stateRoot').default(() => join(homedir(), '.collie')) })
      .strict()
      .prefault({}),
    run: z
      .object({
        createHarness: fn<(run: TriggerRun) => Harness>('createHarness').optional(),
        sandbox: z.object(sandboxOptionsFields).strict().optional(),
        blockingPatterns: z.array(regex).default([]),
        monitorIntervalMs: z.number().int().positive().default(1000),
        killGraceMs: z.number().int().nonnegative().default(5000),
      })
      .strict()
      .prefault({}),
    score: z
      .object({ scalarExtraction: regex.default('^score:\\s*(\\S+)') })
      .strict()
      .prefault({}),
    keep: z
      .object({
        policy: z
          .custom<KeepPolicy>(
            (v) => typeof v === 'object' && v !== null && typeof (v as KeepPolicy).decide === 'function',
            'keep.policy must be a core KeepPolicy { name, decide }',
          )
          .optional(),
        guards: z.array(guard).default([]),
      })
      .strict()
      .prefault({}),
    stop: z
      .object({
        maxIterations: z.number().int().positive().default(5),
        maxTokens: limit.default('unlimited'),
        maxWallclockMin: limit.default('unlimited'),
        policy: z
          .union([
            stopPolicy('stop.policy must be a core StopPolicy { name, check } or a list of them'),
            z.array(stopPolicy('each stop policy must be a core StopPolicy { name, check }')),
          ])
          .optional(),
        policyStatus: z.enum(['converged', 'budget_exhausted', 'escalated']).default('converged'),
      })
      .strict()
      .prefault({}),
    recovery: z
      .object({ lockStaleMs: z.number().int().min(2000).default(30_000) })
      .strict()
      .prefault({}),
    parallel: z
      .object({ deepVerify: z.number().int().positive().default(4) })
      .strict()
      .prefault({}),
    clock: obj<Clock>('clock').default(systemClock),
    randomHex: fn<() => string>('randomHex').default(() => () => randomBytes(3).toString('hex')),
    env: z.record(z.string(), z.string().optional()).optional(),
    output: fn<(line: string) => void>('output').default(
      () => (line: string) => void process.stdout.write(`${line}\n`),
    ),
  })
  .strict();

/** The parsed options (grouped, defaults filled). */
export type ResolvedAutoiterOptions = z.output<typeof autoiterOptionsSchema>;

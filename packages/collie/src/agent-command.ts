import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { LoopError, parseOptions } from '@loop/core';
import {
  describeExit,
  planSandbox,
  runInGroupToLog,
  sandboxOptionsFields,
  type SandboxOptions,
} from '@loop/core/process';
import { z } from 'zod';
import { renderAgentPrompt, TIER_MODELS, type Agent, type CapabilityTier } from './agent.js';

/**
 * Options of {@link createAgentCommand}. Sandbox (core `sandbox.ts`, issue 12): `sandbox` defaults
 * to `auto` like core's agent proposer: where bwrap works, each call is confined to its working
 * directory (the run's worktree) plus `writable` and a private `/tmp`, with the network (on by
 * default: agent CLIs call their model's API) unless `network: false`; elsewhere it runs
 * unconfined after one warning through `onSandboxWarning`. A confined agent cannot commit in a
 * linked git worktree (its repository's `.git` lies outside it): collie commits each FIX itself,
 * so that is not needed; an agent CLI that must write its own state (`~/.claude`) needs it in
 * `writable`. `sandbox: 'none'` runs it unconfined.
 */
export interface AgentCommandOptions extends SandboxOptions {
  /**
   * The agent CLI, run with `/bin/sh -c` in `cwd`; the prompt arrives on stdin. One command for all
   * tiers (it can read `$COLLIE_AGENT_MODEL`, e.g. `claude -p --model "$COLLIE_AGENT_MODEL"`) or one
   * per tier.
   */
  command: string | Record<CapabilityTier, string>;
  /**
   * Absolute working directory of the agent, unless a request names its own (`AgentRequest.cwd`: the controller passes
   * the run's worktree).
   */
  cwd: string;
  /** Absolute directory for the per-call output logs (`<role>-<n>.log`). */
  logDir: string;
  /** Hard timeout of one call in ms; the whole process tree is killed past it. @default 600000 */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL, in ms. @default 5000 */
  graceMs?: number;
  /** Extra environment variables (merged over `process.env`). */
  env?: Record<string, string>;
  /**
   * A regular expression that finds the call's token usage in its output, with named groups
   * `input` and `output` (or one group `total`); the first match counts, e.g. for
   * `claude -p --output-format json`: `"input_tokens":\s*(?<input>\d+)[\s\S]*?"output_tokens":\s*(?<output>\d+)`.
   * Without it (or without a match) the controller estimates tokens as characters / 4.
   */
  usagePattern?: string;
  /**
   * For agent CLIs that print one JSON object (e.g. `claude -p --output-format json`): the
   * dot-separated path of the reply text in it (`result` for claude). The reply is that string;
   * `usagePattern` still reads the raw output. @default none (the whole output is the reply)
   */
  replyField?: string;
}

const abs = (what: string) => z.string().refine((p) => isAbsolute(p), `${what} must be an absolute path`);

/** zod schema of {@link AgentCommandOptions}. */
export const agentCommandOptionsSchema = z.object({
  command: z.union([
    z.string().trim().min(1, 'command must not be empty'),
    z.object({ fast: z.string().min(1), standard: z.string().min(1), deep: z.string().min(1) }),
  ]),
  cwd: abs('cwd'),
  logDir: abs('logDir'),
  timeoutMs: z.number().int().positive().default(600_000),
  graceMs: z.number().int().nonnegative().default(5000),
  env: z.record(z.string(), z.string()).default({}),
  ...sandboxOptionsFields,
  replyField: z
    .string()
    .regex(/^[\w-]+(\.[\w-]+)*$/, 'replyField must be a dot-separated path such as result or message.text')
    .optional(),
  usagePattern: z
    .string()
    .refine((p) => {
      try {
        const groups = new RegExp(`${p}|`).exec('')?.groups;
        return groups !== undefined && ('total' in groups || ('input' in groups && 'output' in groups));
      } catch {
        return false;
      }
    }, 'usagePattern must be a valid regular expression with named groups input and output, or total')
    .optional(),
});

/**
 * The string at dot path `field` of the JSON object the output holds (its last line that parses as an object), or
 * undefined.
 */
export function replyAt(output: string, field: string): string | undefined {
  const candidates = [output, ...output.split('\n').reverse()];
  for (const text of candidates) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    for (const key of field.split('.'))
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

/** The token usage `pattern` finds in `output`, or undefined. */
export function parseUsage(pattern: string, output: string): { input: number; output: number } | undefined {
  const g = new RegExp(pattern).exec(output)?.groups;
  if (!g) return undefined;
  if (g.total !== undefined)
    return Number.isFinite(Number(g.total)) ? { input: Number(g.total), output: 0 } : undefined;
  const input = Number(g.input);
  const out = Number(g.output);
  return Number.isFinite(input) && Number.isFinite(out) ? { input, output: out } : undefined;
}

/**
 * An {@link Agent} that runs any agent CLI as a fresh process per call, the prompt (with its
 * inputs) on stdin, stdout and stderr to a log file, in its own process group killed as a whole on
 * timeout. The environment gets `COLLIE_AGENT_ROLE`, `COLLIE_AGENT_TIER`, `COLLIE_AGENT_MODEL`
 * (haiku / sonnet / opus) and `COLLIE_AUTOITER_ACTIVE=1` (so a nested autoiter refuses to run).
 * With `usagePattern`, the usage found in the output is reported to the controller's token meter (SC4).
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options.
 * @throws {LoopError} `PROPOSER_FAILED` from `run()` when the command cannot start, exits non-zero
 *   or times out, or (with `replyField`) prints no JSON object with a string there (the message
 *   names the log file).
 */
export function createAgentCommand(options: AgentCommandOptions): Agent {
  const o = parseOptions(agentCommandOptionsSchema, options, 'collie agent-command');
  const sandbox = planSandbox(o, 'collie agent-command', { mode: 'auto', network: true });
  let n = 0;
  return {
    name: `agent-command(${typeof o.command === 'string' ? o.command : o.command.deep})`,
    run: async (request) => {
      n += 1;
      const command = typeof o.command === 'string' ? o.command : o.command[request.tier];
      const logPath = join(o.logDir, `${request.role.replace(/[^\w.-]+/g, '_')}-${n}.log`);
      const spec = sandbox([request.cwd ?? o.cwd]);
      const result = await runInGroupToLog({
        logPath,
        command,
        cwd: request.cwd ?? o.cwd,
        env: {
          ...process.env,
          ...o.env,
          COLLIE_AGENT_ROLE: request.role,
          COLLIE_AGENT_TIER: request.tier,
          COLLIE_AGENT_MODEL: TIER_MODELS[request.tier],
          COLLIE_AUTOITER_ACTIVE: '1',
        },
        input: renderAgentPrompt(request),
        killTimeoutMs: o.timeoutMs,
        graceMs: o.graceMs,
        signal: request.signal,
        ...(request.pidFile ? { pidFile: request.pidFile } : {}),
        ...(spec ? { sandbox: spec } : {}),
      });
      const output = await readFile(logPath, 'utf8').catch(() => '');
      if (result.spawnError || result.timedOut || result.aborted || result.exitCode !== 0) {
        const why =
          result.spawnError?.message ??
          (result.timedOut
            ? `timed out after ${o.timeoutMs} ms`
            : result.aborted
              ? 'was aborted'
              : result.exitCode !== null && result.exitCode > 128
                ? describeExit(result.exitCode, null)
                : `exited with ${result.exitCode ?? result.signal}`);
        throw new LoopError(
          'PROPOSER_FAILED',
          `[loop] [collie] agent "${command}" (${request.role}, ${request.tier}) ${why}; see ${logPath}`,
          { details: { logPath, exitCode: result.exitCode } },
        );
      }
      if (o.usagePattern) {
        const usage = parseUsage(o.usagePattern, output);
        if (usage) request.reportUsage?.(usage);
      }
      if (!o.replyField) return output;
      const reply = replyAt(output, o.replyField);
      if (reply === undefined)
        throw new LoopError(
          'PROPOSER_FAILED',
          `[loop] [collie] agent "${command}" (${request.role}) did not print a ` +
            `JSON object with a string at "${o.replyField}"; see ${logPath}`,
          { details: { logPath, replyField: o.replyField } },
        );
      return reply;
    },
  };
}

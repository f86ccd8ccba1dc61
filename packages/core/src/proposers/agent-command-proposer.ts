import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { compareSnapshots } from '../contracts/artifact.js';
import { addUsage, memoryLines, prepareCallFiles, readCallUsage, usageData } from './agent-call-files.js';
import { agentAnswerText, type AgentUsage } from './agent-usage.js';
import { LoopError, parseOptions } from '../contracts/errors.js';
import { claimPidFileSlot } from '../process/pid-file-slots.js';
import { describeExit, runInGroupToLog } from '../process/process-group.js';
import type { Proposal, ProposalContext, Proposer } from '../contracts/proposer.js';
import { planSandbox, type SandboxSpec } from '../process/sandbox.js';
import { planSandboxBinds, sweepSandboxFolders, type SandboxSweep } from '../process/sandbox-folders.js';
import { buildAgentPrompt, descriptionFromOutput, formatHistoryTable, withViolations } from './agent-prompt.js';
import {
  agentCommandProposerOptionsSchema,
  type AgentCommandProposerOptions,
} from './agent-command-proposer-options.js';

/** What a sandbox refusal looks like in a tool's output. */
const REFUSED = /Read-only file system|Device or resource busy|\bEROFS\b|\bEBUSY\b/;

/** The last `n` non-empty lines of `text`, each trimmed and cut to 160 characters. */
function lastLines(text: string, n: number): string[] {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-n);
  return lines.map((l) => (l.length > 160 ? `${l.slice(0, 157)}...` : l));
}

/** What a sandboxed agent's error or no-change report adds: what was writable, and how to widen it. */
function confinedHint(spec: SandboxSpec): string {
  const writable = [...spec.writable, ...(spec.extraWritable ?? [])].join(', ');
  const how = 'a target file through its folder, whose other entries stay read-only';
  const widen = "if it must write elsewhere (e.g. ~/.claude), add the path to writable, or set sandbox: 'none'";
  return ` It ran in the bwrap sandbox, writable only: ${writable} (${how}) and a private /tmp; ${widen}.`;
}

/** The agent log's lines about what the sweep after the call did (paths relative to `cwd`). */
function sweepLines(swept: SandboxSweep, cwd: string): string {
  const rel = (paths: readonly string[]) => paths.map((p) => relative(cwd, p)).join(', ');
  return [
    ...(swept.removed.length > 0
      ? [`[loop] removed what the agent left beside its targets: ${rel(swept.removed)}`]
      : []),
    ...(swept.restored.length > 0
      ? [`[loop] put back the symlinks it removed or replaced: ${rel(swept.restored)}`]
      : []),
  ]
    .map((l) => `${l}\n`)
    .join('');
}

/**
 * A proposer that runs an external agent CLI (any command; the prompt on stdin) in the workspace:
 * a fresh process every iteration (seed 001: 执行隔离), under a hard timeout that kills its
 * process tree. The files it changed are detected through the loop's artifact; the description
 * is the last `DESCRIPTION:` line of its output. `repair()` asks the agent to fix a crash; when
 * it changes nothing, the crash stands.
 *
 * Every process the agent starts is gone when its call ends (see `runInGroup`: process group,
 * cgroup, run token), a `setsid` daemon included; with `pidFile` a SIGKILLed controller's agent is
 * ended by the next call.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options, or `sandbox: 'bwrap'` where bwrap does not work.
 * @throws {LoopError} `PROPOSER_FAILED` from `propose()` when the agent exits non-zero or times out
 *   (the engine records a crash row and rolls back).
 *
 * @example
 * const proposer = createAgentCommandProposer({ command: 'claude -p --permission-mode acceptEdits', cwd, goal: 'Lower
 * val_bpc of train.mjs.' });
 */
export function createAgentCommandProposer(options: AgentCommandProposerOptions): Proposer {
  const o = parseOptions(agentCommandProposerOptionsSchema, options, 'agent-command-proposer');
  const sandbox = planSandbox(o, 'agent-command-proposer', { mode: 'auto', network: true });
  /** What each recent iteration's calls cost so far (a repair adds to its proposal's). */
  const spentOn = new Map<number, AgentUsage>();
  const call = async (context: ProposalContext): Promise<{ proposal: Proposal; changed: readonly string[] }> => {
    // In a parallel batch the agent works in the candidate's working copy, never in the main workspace.
    const cwd = context.workingCopy?.dir ?? o.cwd;
    const logPath = resolve(cwd, o.logFile);
    const before = context.artifact ? await context.artifact.inspect() : undefined;
    const history = withViolations(o.formatHistory ?? formatHistoryTable, o.constraints, o.constraintNames);
    // The memory folder is the main workspace's, also for a parallel candidate's call.
    const files = await prepareCallFiles(o, o.cwd);
    const prompt = o.buildPrompt
      ? o.buildPrompt(context)
      : buildAgentPrompt(o.goal, context, history, await memoryLines(o, context, files));
    const targets = context.artifact ? context.artifact.mutable.map((m) => resolve(cwd, m)) : [cwd];
    // Parallel candidates' agent calls overlap: each takes its own pid-file slot, and the orphan
    // sweep never ends a live sibling's call (issue 15).
    const slot = o.pidFile ? await claimPidFileSlot(o.pidFile, 5000) : undefined;
    let result: Awaited<ReturnType<typeof runInGroupToLog>>;
    let spec: SandboxSpec | undefined;
    let swept: SandboxSweep | undefined;
    try {
      // The log exists before the binds are planned: the sweep spares what was there (issue 32).
      await mkdir(dirname(logPath), { recursive: true });
      await writeFile(logPath, '');
      const planned = sandbox(files.dir ? [...targets, files.dir] : targets);
      const binds = planned && planSandboxBinds(planned.writable, planned.extraWritable, planned.maxFolderEntries);
      spec = planned && binds ? { ...planned, binds } : undefined;
      result = await runInGroupToLog({
        logPath,
        command: o.command,
        cwd,
        env: {
          ...process.env,
          ...o.env,
          LOOP_ITERATION: String(context.iteration),
          LOOP_ATTEMPT: String(context.attempt),
          ...files.env,
        },
        input: prompt,
        killTimeoutMs: o.timeoutMs,
        graceMs: 5000,
        signal: context.signal,
        ...(slot ? { pidFile: slot.path } : {}),
        ...(spec ? { sandbox: spec } : {}),
      });
      // Temp files and backups the agent left beside its targets go; replaced symlinks come back.
      try {
        swept = spec?.binds ? sweepSandboxFolders(spec.binds, [logPath, ...(slot ? [slot.path] : [])]) : undefined;
      } catch (error) {
        const message = `could not remove what the agent left beside its targets (${(error as Error).message})`;
        const where = `check the folders of ${targets.join(', ')}`;
        throw new LoopError('PROPOSER_FAILED', `[loop] [agent-command-proposer] ${message}; ${where}`, {
          cause: error,
        });
      }
    } finally {
      slot?.release();
    }
    const output = await readFile(logPath, 'utf8').catch(() => '');
    if (swept) await appendFile(logPath, sweepLines(swept, cwd));
    // A repair's call adds to what the iteration's earlier calls cost: the candidate's record holds the sum
    // (a failed call's cost goes with its PROPOSER_FAILED as details.data, into the crash row).
    const usage = addUsage(
      context.attempt > 0 ? spentOn.get(context.iteration) : undefined,
      await readCallUsage(files, output),
    );
    if (usage) spentOn.set(context.iteration, usage);
    for (const i of spentOn.keys()) if (i < context.iteration - 64) spentOn.delete(i);
    const data = usageData(usage);
    const confined = spec ? confinedHint(spec) : '';
    if (result.spawnError || result.timedOut || result.exitCode !== 0) {
      const why =
        result.spawnError?.message ??
        (result.timedOut ? `timed out after ${o.timeoutMs} ms` : describeExit(result.exitCode, result.signal));
      const tail = lastLines(output, 3);
      const ends = tail.length > 0 ? `, which ends: ${tail.join(' | ')}` : '';
      const details = { logPath, exitCode: result.exitCode, sandboxed: spec !== undefined, ...(data ? { data } : {}) };
      const message = `[loop] [agent-command-proposer] agent "${o.command}" ${why}; see ${logPath}${ends}.${confined}`;
      throw new LoopError('PROPOSER_FAILED', message, { details });
    }
    const after = context.artifact && (await context.artifact.inspect());
    const changed =
      before && context.artifact && after ? compareSnapshots(context.artifact, before, after).changed : [];
    let description = descriptionFromOutput(agentAnswerText(output));
    if (context.artifact && changed.length === 0) {
      const refused = spec !== undefined && REFUSED.test(output);
      const answer = agentAnswerText(output); // a JSON-printing CLI's answer, not its one long JSON line
      const ends = lastLines(answer, 3).join(' | ') || '(empty)';
      const refusal = refused ? '; a write was refused by the sandbox' : '';
      description = `${description} [agent exited 0 and changed no target; ${o.logFile} ends: ${ends}${refusal}]`;
      const repair = context.attempt > 0 ? ` (repair ${context.attempt})` : '';
      o.onNoChange?.(
        [
          `[loop] [agent-command-proposer] ` +
            `iteration ${context.iteration}${repair}: the agent exited 0 and changed ` +
            `none of ` +
            `${context.artifact.mutable.join(', ')}; the last lines of ${logPath}:`,
          ...lastLines(answer, 10).map((l) => `    ${l}`),
          ...(spec?.binds?.notes ?? []).map((n) => `    note: ${n}`),
          ...(refused ? [`    a write was refused.${confined}`] : []),
        ].join('\n'),
      );
    }
    return { proposal: { description, changedFiles: changed, ...(data ? { data } : {}) }, changed };
  };
  return {
    name: `agent(${o.command})`,
    propose: async (context) => (await call(context)).proposal,
    repair: async (context) => {
      const { proposal, changed } = await call(context);
      return changed.length === 0 ? undefined : proposal;
    },
  };
}

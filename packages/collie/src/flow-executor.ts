import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { LoopError, type MaybePromise } from '@loop/core';
import type { Agent } from './agent.js';
import type { FixRecord } from './records.js';

/** What a {@link FlowExecutor} gets for one FIX. */
export interface FlowFixContext {
  /** The FIX to apply (G8/G2-eligible, in the plan's DAG order). */
  readonly fix: FixRecord;
  /** The iteration number. */
  readonly iter: number;
  /** Absolute path of the run's worktree. */
  readonly worktree: string;
  /** Absolute path of iter-N/fix-plan.md. */
  readonly planPath: string;
  /** The text of fix-plan.md. */
  readonly planText: string;
  readonly signal?: AbortSignal;
  /**
   * Where commands the executor runs record their process groups (`<run>/pids`), so a controller
   * restarted after a SIGKILL kills what this one left running. Set by the controller.
   */
  readonly pidDir?: string;
}

/**
 * Stage 5.1 (seed 000 `Skill('collie:flow')`): applies one FIX of the plan to the worktree by
 * changing files. It does not commit: the flow stage commits the FIX's changes as exactly one
 * commit (trailer `Collie-Fix: iter-N/FIX-nnn`) after `apply` returns, so every executor gives one
 * commit per FIX and a restarted stage can find what it already committed. A FIX whose apply
 * changes nothing gets no commit. Throwing fails the step (the next step retries that FIX from a
 * clean worktree).
 */
export interface FlowExecutor {
  readonly name: string;
  /** Applies `ctx.fix` in `ctx.worktree`; returns a one-line note for user-log.md. */
  readonly apply: (ctx: FlowFixContext) => MaybePromise<string | void>;
}

/** The flow prompt of one FIX. */
export function flowPrompt(fix: FixRecord, worktree: string): string {
  return [
    `You are the flow subagent of an autoiter run. Apply ${fix.id} from the ` +
      `fix plan in the working copy at ${worktree}.`,
    'Work test-first: add the reproduction test when the FIX is kind ' +
      'correctness and its key files list a new test file, then implement the ' +
      'smallest change.',
    `Change only these files: ${fix.key_files.join(', ') || '(the plan lists none: change nothing)'}.`,
    'Do not modify existing test files. Do not commit: the orchestrator commits your changes as one commit.',
    'Reply with one line: what you changed.',
  ].join('\n');
}

/**
 * The real Stage 5.1 executor: dispatches each FIX to an {@link Agent} (role `flow`, standard tier
 * = sonnet, the seed's "apply fix patch → sonnet") with the plan and the FIX record as inputs.
 * The agent edits the worktree; the flow stage commits.
 */
export function createAgentFlowExecutor(
  agent: Agent,
  options: { tier?: 'fast' | 'standard' | 'deep' } = {},
): FlowExecutor {
  return {
    name: `agent-flow(${agent.name})`,
    apply: async (ctx) => {
      const reply = await agent.run({
        role: 'flow',
        tier: options.tier ?? 'standard',
        prompt: flowPrompt(ctx.fix, ctx.worktree),
        inputs: { 'fix-plan.md': ctx.planText, [`${ctx.fix.id}.md`]: JSON.stringify(ctx.fix, null, 2) },
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      return reply.trim().split('\n')[0] ?? '';
    },
  };
}

/** A scripted patch: file path (relative to the worktree) → new content, or null to delete it. */
export type ScriptedPatch = Readonly<Record<string, string | null>>;

/**
 * A fake executor for tests and demos: applies the scripted patch of each FIX id (a fixed patch,
 * or a function of the context returning one). A FIX without a script is an error.
 *
 * @throws {LoopError} `PROPOSER_FAILED` from `apply` when a FIX has no patch, or a path leaves the worktree.
 */
export function createScriptedFlowExecutor(
  patches: Readonly<Record<string, ScriptedPatch | ((ctx: FlowFixContext) => ScriptedPatch)>>,
): FlowExecutor & { readonly applied: string[] } {
  const applied: string[] = [];
  return {
    name: 'scripted-flow',
    applied,
    apply: async (ctx) => {
      const entry = patches[ctx.fix.id];
      if (entry === undefined)
        throw new LoopError(
          'PROPOSER_FAILED',
          `[loop] [collie] scripted flow executor has no patch for ${ctx.fix.id}; add one to the script`,
          { details: { fix: ctx.fix.id } },
        );
      const patch = typeof entry === 'function' ? entry(ctx) : entry;
      for (const [path, content] of Object.entries(patch)) {
        const abs = resolve(ctx.worktree, path);
        if (relative(ctx.worktree, abs).startsWith('..'))
          throw new LoopError('PROPOSER_FAILED', `[loop] [collie] scripted patch path ${path} leaves the worktree`, {
            details: { path },
          });
        if (content === null) await rm(abs, { force: true });
        else {
          await mkdir(dirname(abs), { recursive: true });
          await writeFile(abs, content);
        }
      }
      applied.push(ctx.fix.id);
      return `applied scripted patch (${Object.keys(patch)
        .map((p) => join(p))
        .join(', ')})`;
    },
  };
}

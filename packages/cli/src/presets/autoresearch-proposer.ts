import type { AutoresearchProposer, PlanContext } from '@loop/autoresearch';
import { lastLine, runShellCommand } from './shell-command.js';

/** Options of {@link createCommandPassProposer}. */
export interface CommandPassProposerOptions {
  /** Absolute workspace; the commands run there. */
  workspace: string;
  /**
   * Makes one focused edit per call (`/bin/sh -c`); prompt on stdin, `LOOP_IDEA`, `LOOP_ITERATION`, `LOOP_ROUND` in its
   * environment.
   */
  command: string;
  /** Optional: prints the idea of the next edit as its last output line; must not edit files. */
  planCommand?: string;
  /** What the pass improves (in the prompt). */
  goal: string;
  /** Hard timeout of one call in ms. */
  timeoutMs: number;
  /** Aborts a call in flight (its process group is killed). */
  signal?: AbortSignal;
}

/** The prompt a proposer command gets on stdin. */
export function passPrompt(
  goal: string,
  context: {
    iteration: number;
    files: readonly string[];
    best?: number;
    recentReverted?: readonly string[];
    idea?: string;
    round?: number;
    rounds?: number;
  },
): string {
  const round =
    context.round !== undefined
      ? `, round ${context.round + 1} of ` +
        `${context.rounds ?? 1}${context.round > 0 ? ' (refine the edit you made)' : ''}`
      : '';
  return [
    `Goal: ${goal}`,
    `Iteration ${context.iteration}${round}` + `.`,
    `Mutable files: ${context.files.join(', ') || '(from git status)'}.`,
    ...(context.best !== undefined ? [`Best composite so far: ${context.best}.`] : []),
    ...(context.idea ? [`The edit to make: ${context.idea}`] : []),
    ...(context.recentReverted && context.recentReverted.length > 0
      ? [`Do not repeat these reverted ideas: ${context.recentReverted.join('; ')}`]
      : []),
    'Make ONE focused edit of the mutable files only. Never edit the tests, the rubric or the harness.',
    '',
  ].join('\n');
}

/**
 * An autoresearch proposer made of shell commands: `plan` runs `planCommand` (its last output line
 * is the idea; without one the idea is `edit <iteration>` until `command` has run, and then its last
 * output line, when it prints one), `apply` runs `command` once per
 * internal round. A non-zero exit or a timeout throws, so the iteration is a `crash` row.
 */
export function createCommandPassProposer(options: CommandPassProposerOptions): AutoresearchProposer {
  let files: readonly string[] = [];
  let last: PlanContext | undefined;
  return {
    name: `command(${options.command.split(/\s+/)[0]})`,
    plan: async (context) => {
      files = context.files;
      last = context;
      if (!options.planCommand) return { description: `edit ${context.iteration}` };
      const r = await runShellCommand(
        options.planCommand,
        options.workspace,
        passPrompt(options.goal, {
          iteration: context.iteration,
          files,
          best: context.best,
          recentReverted: context.recentReverted,
        }),
        options.timeoutMs,
        { LOOP_ITERATION: String(context.iteration) },
        options.signal,
      );
      if (!r.ok) throw new Error(`proposer.planCommand ${r.ended}: ${r.output.trim().split('\n').slice(-3).join(' ')}`);
      return { description: lastLine(r.output) || `edit ${context.iteration}` };
    },
    apply: async (idea, { iteration, round, rounds }) => {
      const prompt = passPrompt(options.goal, {
        iteration,
        files,
        ...(last ? { best: last.best, recentReverted: last.recentReverted } : {}),
        idea: idea.description,
        round,
        rounds,
      });
      const r = await runShellCommand(
        options.command,
        options.workspace,
        prompt,
        options.timeoutMs,
        { LOOP_IDEA: idea.description, LOOP_ITERATION: String(iteration), LOOP_ROUND: String(round) },
        options.signal,
      );
      if (!r.ok) throw new Error(`proposer.command ${r.ended}: ${r.output.trim().split('\n').slice(-3).join(' ')}`);
      // Without a planCommand the idea is only `edit <iteration>`: the command's last output line
      // (what it says it did) becomes the row's description.
      if (!options.planCommand) return { description: lastLine(r.output) };
      return undefined;
    },
  };
}

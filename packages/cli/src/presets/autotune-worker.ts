import type { RoundEvaluation, RoundPlan, RoundWorker, SyncCheck } from '@loop/autotune';
import { lastLine, runShellCommand } from './shell-command.js';

const tail = (text: string) => text.trim().split('\n').slice(-3).join(' ');

/** Parses the evaluate command's last line. @throws Error naming what is wrong (the round fails). */
export function parseEvaluation(output: string): RoundEvaluation {
  const line = lastLine(output);
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    throw new Error(
      `worker.evaluateCommand: the last output line is not JSON {"tasks": ` +
        `[...]}: ${JSON.stringify(line.slice(0, 200))}`,
    );
  }
  const tasks = (data as { tasks?: unknown }).tasks;
  if (
    !Array.isArray(tasks) ||
    tasks.some(
      (t) => typeof (t as { id?: unknown }).id !== 'string' || typeof (t as { passed?: unknown }).passed !== 'boolean',
    )
  ) {
    throw new Error(
      'worker.evaluateCommand: "tasks" must be an array of {"id": string, "passed": boolean, "priority"?, "detail"?}',
    );
  }
  const rationales = (data as { rationales?: unknown }).rationales;
  return {
    tasks: tasks as RoundEvaluation['tasks'],
    ...(rationales && typeof rationales === 'object' ? { rationales: rationales as Record<string, string> } : {}),
  };
}

/** Options of {@link createCommandRoundWorker}. */
export interface CommandRoundWorkerOptions {
  /** The round's code changes; the context JSON on stdin. */
  improveCommand: string;
  /** Prints `{"tasks": [...]}` as its last line. */
  evaluateCommand: string;
  /** Hard timeout per command in ms. */
  timeoutMs: number;
}

/**
 * An autotune `RoundWorker` of two shell commands (a configuration of `@loop/autotune`'s public
 * worker interface). `improve` first evaluates the current code to know the failing tasks (not
 * excluded), then runs `improveCommand` with `{round, failing, excluded, scoreboard}` on stdin; its
 * last line may be a JSON plan, else it is the summary and the failing tasks are the targets.
 * `evaluate` runs `evaluateCommand` and parses its last line. A failing command throws.
 */
export function createCommandRoundWorker(o: CommandRoundWorkerOptions): RoundWorker {
  const evaluate = async (dir: string): Promise<RoundEvaluation> => {
    const r = await runShellCommand(o.evaluateCommand, dir, '', o.timeoutMs);
    if (!r.ok) throw new Error(`worker.evaluateCommand ${r.ended}: ${tail(r.output)}`);
    return parseEvaluation(r.output);
  };
  return {
    name: `command(${o.improveCommand.split(/\s+/)[0]})`,
    improve: async ({ round, dir, scoreboard, excluded }): Promise<RoundPlan> => {
      const failing = (await evaluate(dir)).tasks.filter((t) => !t.passed && !excluded.includes(t.id)).map((t) => t.id);
      if (failing.length === 0) return { summary: 'no failing task left', targets: [], changed: false };
      const r = await runShellCommand(
        o.improveCommand,
        dir,
        `${JSON.stringify({ round, failing, excluded, scoreboard })}\n`,
        o.timeoutMs,
      );
      if (!r.ok) throw new Error(`worker.improveCommand ${r.ended}: ${tail(r.output)}`);
      const line = lastLine(r.output);
      try {
        const plan = JSON.parse(line) as Partial<RoundPlan>;
        if (plan && typeof plan.summary === 'string')
          return {
            summary: plan.summary,
            targets: Array.isArray(plan.targets) ? plan.targets.map(String) : failing,
            ...(typeof plan.changed === 'boolean' ? { changed: plan.changed } : {}),
          };
      } catch {
        // not JSON: the line is the summary
      }
      return { summary: line || `round ${round}: ${failing.join(', ')}`, targets: failing };
    },
    evaluate: ({ dir }) => evaluate(dir),
  };
}

/** A sync check that runs `command` in the app repository: exit 0 is in sync, else its output is the reason. */
export function createCommandSyncCheck(command: string, timeoutMs: number): SyncCheck {
  return {
    name: `command(${command.split(/\s+/)[0]})`,
    verify: async ({ dir }) => {
      const r = await runShellCommand(command, dir, '', timeoutMs);
      return r.ok ? { ok: true } : { ok: false, reason: `syncCommand ${r.ended}: ${tail(r.output)}` };
    },
  };
}

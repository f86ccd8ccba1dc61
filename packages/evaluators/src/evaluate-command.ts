import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatEvaluation } from './evaluation.js';
import { evaluate, EVALUATOR_TARGETS, type EvaluatorTarget } from './run-evaluator.js';

const USAGE =
  `usage: loop-evaluate <skill|skill-full|memory> <path> [--agent NAME] [--questions FILE] [--now ` +
  `YYYY-MM-DD] [--json]
  prints one "dim.<name>: <score>" line per dimension, then "score: <total>" (0-10);
  --json prints { evaluator, target, score, dimensions: [{ name, weight, score, notes }] } instead.
exit codes: 0 scored, 1 bad command line, 2 the target cannot be parsed (a crash for the loop)`;

/**
 * The `loop-evaluate` command: runs one evaluator and prints its result. Returns the exit code.
 * Nothing the target contains reaches stdout except through the evaluator's own lines.
 */
export async function main(
  argv: readonly string[],
  out: (s: string) => void = (s) => void process.stdout.write(s),
  err: (s: string) => void = (s) => void process.stderr.write(s),
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        agent: { type: 'string' },
        questions: { type: 'string' },
        now: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    err(`${(error as Error).message}\n${USAGE}\n`);
    return 1;
  }
  const [type, path] = parsed.positionals;
  if (parsed.values.help) {
    out(`${USAGE}\n`);
    return 0;
  }
  if (!type || !path || !EVALUATOR_TARGETS.includes(type as EvaluatorTarget) || parsed.positionals.length > 2) {
    err(`${USAGE}\n`);
    return 1;
  }
  try {
    const { agent, questions, now } = parsed.values;
    const e = await evaluate(type as EvaluatorTarget, resolve(path), {
      ...(agent ? { agent } : {}),
      ...(questions ? { questions: resolve(questions) } : {}),
      ...(now ? { now } : {}),
    });
    out(`${parsed.values.json ? JSON.stringify(e, null, 2) : formatEvaluation(e)}\n`);
    return 0;
  } catch (error) {
    const e = error as Error & { code?: string };
    err(`error${e.code ? ` [${e.code}]` : ''}: ${e.message}\n`);
    return e.code === 'TARGET_UNPARSEABLE' ? 2 : 1;
  }
}

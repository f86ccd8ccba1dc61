import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { LoopError, type MaybePromise } from '@loop/core';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** The ids of Stage 0's five questions (seed 000 Step 0.3). */
export type QuestionId = 'Q1' | 'Q2' | 'Q3' | 'Q4' | 'Q5';

/** One question. */
export interface Question {
  readonly id: QuestionId;
  /** The question, with any context (Q1 carries the discovery ranking). */
  readonly text: string;
  /** The answer used when the user gives none. */
  readonly default?: string;
}

/** The answers, by question id. */
export type Answers = Readonly<Record<QuestionId, string>>;

/**
 * Asks the user for the run spec (seed 000 Stage 0 Step 0.3, the host's AskUserQuestion): Stage 0's
 * questions Q1-Q5, all in one batch, and returns every answer (defaults filled in).
 * Interactive (readline) or answered from a file for queued runs.
 */
export interface RunSpecAsker {
  /** Used in errors and logs. */
  readonly name: string;
  /** Asks all questions; must return an answer for each. */
  readonly ask: (questions: readonly Question[]) => MaybePromise<Answers>;
  /**
   * Asks one multiple-choice question and returns one of `choices` (the seed's AskUserQuestion,
   * e.g. "Prepare failed: [X]. Fix material and retry, or abort?" with `retry` / `abort`). Only
   * interactive askers have it; without it a run is queued and takes the non-interactive path.
   */
  readonly choose?: (question: string, choices: readonly string[]) => MaybePromise<string>;
}

function fill(questions: readonly Question[], given: Partial<Record<QuestionId, string>>, where: string): Answers {
  const out: Partial<Record<QuestionId, string>> = {};
  const missing: string[] = [];
  for (const q of questions) {
    const a = given[q.id]?.trim();
    const v = a === undefined || a === '' ? q.default : a;
    if (v === undefined) missing.push(q.id);
    else out[q.id] = v;
  }
  if (missing.length > 0) {
    throw new LoopError(
      'CONFIG_INVALID',
      `[loop] [collie] ${where} has no answer for ${missing.join(', ')} and they have no default; answer them`,
      { details: { missing } },
    );
  }
  return out as Answers;
}

/**
 * Asks on a terminal with node:readline: prints all questions first (one batch), then reads one
 * answer line per question; an empty line takes the default. Interactive: has `choose` (a prefix
 * of a choice is accepted; a closed input picks the last choice).
 */
export function createReadlineAsker(
  options: { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream } = {},
): RunSpecAsker {
  return {
    name: 'readline',
    ask: async (questions) => {
      const output = options.output ?? process.stdout;
      const rl = createInterface({ input: options.input ?? process.stdin, output, terminal: false });
      const lines: string[] = [];
      const done = new Promise<void>((resolve) => rl.once('close', resolve));
      rl.on('line', (line) => {
        lines.push(line);
        if (lines.length === questions.length) rl.close();
      });
      const asked = questions.map(
        (q) => `${q.id}: ${q.text}${q.default !== undefined ? ` [default: ${q.default}]` : ''}`,
      );
      output.write(`${asked.join('\n')}` + `\nAnswer ` + `each on its own line:\n`);
      await done;
      const given: Partial<Record<QuestionId, string>> = {};
      questions.forEach((q, i) => (given[q.id] = lines[i] ?? ''));
      return fill(questions, given, 'the terminal');
    },
    choose: async (question, choices) => {
      const output = options.output ?? process.stdout;
      const rl = createInterface({ input: options.input ?? process.stdin, output, terminal: false });
      try {
        output.write(`${question} [${choices.join('/')}]\n`);
        for await (const line of rl) {
          const a = line.trim().toLowerCase();
          const pick =
            choices.find((c) => c.toLowerCase() === a) ??
            choices.find((c) => a !== '' && c.toLowerCase().startsWith(a));
          if (pick) return pick;
          output.write(`Answer one of: ${choices.join(', ')}\n`);
        }
      } finally {
        rl.close();
      }
      // stdin closed without an answer: the last choice (abort) is the safe one
      return choices.at(-1)!;
    },
  };
}

const answersFileSchema = z.object({
  Q1: z.string().optional(),
  Q2: z.string().optional(),
  Q3: z.string().optional(),
  Q4: z.string().optional(),
  Q5: z.string().optional(),
});

/**
 * Answers from a YAML or JSON file (`Q1: ...` to `Q5: ...`, numbers and booleans allowed), for
 * queued runs; an absent answer takes the question's default.
 *
 * @throws {LoopError} `CONFIG_INVALID` from `ask()` when the file is missing or malformed, or an
 *   answer without a default is absent.
 */
export function createAnswersFileAsker(path: string): RunSpecAsker {
  return {
    name: `file(${path})`,
    ask: async (questions) => {
      let raw: unknown;
      try {
        raw = parseYaml(await readFile(path, 'utf8'));
      } catch (error) {
        throw new LoopError(
          'CONFIG_INVALID',
          `[loop] [collie] cannot read the answers file ${path}: ${(error as Error).message}`,
          { cause: error, details: { path } },
        );
      }
      const obj =
        typeof raw === 'object' && raw !== null
          ? Object.fromEntries(
              Object.entries(raw).map(([k, v]) => [k, v === null || v === undefined ? undefined : String(v)]),
            )
          : {};
      const r = answersFileSchema.safeParse(obj);
      if (!r.success)
        throw new LoopError(
          'CONFIG_INVALID',
          `[loop] [collie] the answers file ${path} is malformed: ${r.error.message}`,
          { details: { path } },
        );
      return fill(questions, r.data, `the answers file ${path}`);
    },
  };
}

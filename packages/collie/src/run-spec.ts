import { LoopError } from '@loop/core';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';
import type { Answers, Question } from './run-spec-asker.js';

const limit = z.union([z.literal('unlimited'), z.number().positive()]);

/** zod schema of the run-spec body (seed 000 Step 0.4). */
export const runSpecSchema = z.object({
  task: z.string(),
  primary_goal: z.enum(['correctness', 'optimization', 'both']),
  trigger: z.object({
    kind: z.enum(['shell', 'replay', 'dataset']),
    invocation: z.string().min(1),
    expected_output: z.string().default('stdout stream'),
    /** A regular expression; group 1 (or the first number after the match) is the scalar. */
    scalar_extraction: z.string().min(1),
  }),
  success_criterion: z.object({
    type: z.enum(['all_green', 'scalar_threshold', 'convergence_delta', 'custom']),
    threshold: z.number().nullable().default(null),
  }),
  budget: z.object({
    max_iterations: z.number().int().positive().default(5),
    max_tokens: limit.default('unlimited'),
    max_wallclock_min: limit.default('unlimited'),
  }),
  overfit_guards: z.array(z.string()).default(['G1', 'G2', 'G3', 'G4', 'G5', 'G6', 'G7', 'G8']),
  iter_rollback_policy: z.string().default('kind_aware'),
  skip_prepare: z.boolean().default(false),
});
/** The run spec (see {@link runSpecSchema}). */
export type RunSpec = z.output<typeof runSpecSchema>;

/** Stage 0's five questions (seed 000 Step 0.3); Q1 carries the discovery ranking. */
export function stage0Questions(discovery: string): Question[] {
  return [
    {
      id: 'Q1',
      text:
        `Which trigger? (a shell command; ranked candidates from Discovery ` +
        `below, or your own)\n${discovery.trim()}`,
    },
    {
      id: 'Q2',
      text: 'Success criterion type and threshold? (all_green | scalar_threshold <n> | convergence_delta | custom)',
      default: 'all_green',
    },
    { id: 'Q3', text: 'primary_goal? (correctness / optimization / both)', default: 'correctness' },
    { id: 'Q4', text: 'iter_rollback_policy?', default: 'kind_aware' },
    { id: 'Q5', text: 'Skip Stage 0.5 prepare check? (yes / no)', default: 'no' },
  ];
}

/** What Stage 0 knows besides the answers. */
export interface RunSpecInputs {
  /** The user's prompt, verbatim. */
  task: string;
  /** The scalar regex (the seed's questions do not ask for it). */
  scalarExtraction: string;
  /** @default 5 */
  maxIterations?: number;
  /** @default 'unlimited' */
  maxTokens?: number | 'unlimited';
  /** @default 'unlimited' */
  maxWallclockMin?: number | 'unlimited';
}

/**
 * Builds the run spec from Stage 0's answers.
 *
 * @throws {ConfigError} `CONFIG_INVALID` naming the answer when one is not understood.
 */
export function runSpecFromAnswers(answers: Answers, inputs: RunSpecInputs): RunSpec {
  const [type = 'all_green', thr] = answers.Q2.trim().split(/\s+/);
  const raw = {
    task: inputs.task,
    primary_goal: answers.Q3.trim(),
    trigger: {
      kind: 'shell',
      invocation: answers.Q1.trim(),
      expected_output: 'stdout stream',
      scalar_extraction: inputs.scalarExtraction,
    },
    success_criterion: { type, threshold: thr === undefined ? null : Number(thr) },
    budget: {
      max_iterations: inputs.maxIterations ?? 5,
      max_tokens: inputs.maxTokens ?? 'unlimited',
      max_wallclock_min: inputs.maxWallclockMin ?? 'unlimited',
    },
    overfit_guards: ['G1', 'G2', 'G3', 'G4', 'G5', 'G6', 'G7', 'G8'],
    iter_rollback_policy: answers.Q4.trim(),
    skip_prepare: /^(y|yes|true)$/i.test(answers.Q5.trim()),
  };
  const r = runSpecSchema.safeParse(raw);
  if (!r.success) {
    throw new LoopError(
      'CONFIG_INVALID',
      `[loop] [collie] Stage 0 answers are not ` +
        `valid: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}; answer again`,
      { details: { issues: r.error.issues } },
    );
  }
  return r.data;
}

/** The plan file Stage 0 writes: the three metadata lines, then the YAML body (seed 000 Step 0.4). */
export function renderPlanFile(planPath: string, spec: RunSpec): string {
  return [
    `<!-- plan-source: ${planPath} -->`,
    '<!-- plan-kind: autoiter-stage0 -->',
    '<!-- plan-executor: collie:autoiter -->',
    '',
    stringifyYaml(spec),
  ].join('\n');
}

/** Reads `plan-source` from the first three lines of a plan file, or undefined. */
export function planSourceOf(text: string): string | undefined {
  for (const line of text.split('\n').slice(0, 3)) {
    const m = /^<!--\s*plan-source:\s*(.+?)\s*-->$/.exec(line.trim());
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Parses run-spec.md (metadata comment lines, then YAML).
 *
 * @throws {LoopError} `STATE_CORRUPT` naming the path and field when it is malformed.
 */
export function parseRunSpec(text: string, path: string): RunSpec {
  let raw: unknown;
  try {
    raw = parseYaml(text.replace(/^<!--.*-->\s*$/gm, ''));
  } catch (error) {
    throw new LoopError('STATE_CORRUPT', `[loop] [collie] ${path} is not valid YAML: ${(error as Error).message}`, {
      cause: error,
      details: { path },
    });
  }
  const r = runSpecSchema.safeParse(raw);
  if (!r.success) {
    throw new LoopError(
      'STATE_CORRUPT',
      `[loop] [collie] ${path} is ` +
        `malformed: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}; ` +
        `it is write-once, so start a new run`,
      { details: { path } },
    );
  }
  return r.data;
}

/** Stage 2's timeout: min(max_wallclock_min / max_iterations, 30) minutes; `unlimited` → 30. */
export function triggerTimeoutMin(spec: Pick<RunSpec, 'budget'>): number {
  const w = spec.budget.max_wallclock_min;
  if (w === 'unlimited') return 30;
  return Math.min(w / spec.budget.max_iterations, 30);
}

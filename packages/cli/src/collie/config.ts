import { z } from 'zod';

const limit = z.union([z.literal('unlimited'), z.number().positive()]);
const regex = (what: string) =>
  z.string().refine((s) => {
    try {
      new RegExp(s);
      return true;
    } catch {
      return false;
    }
  }, `${what} must be a valid regular expression`);
const id = (what: string) => z.string().regex(/^[\w.-]+$/, `${what} may hold letters, digits, ".", "_" and "-" only`);
const command = z.string().trim().min(1, 'command must not be empty');

/** zod schema of the `agent:` block of a collie config (→ `createAgentCommand`). */
export const collieAgentConfigSchema = z
  .object({
    command: z
      .union([command, z.object({ fast: command, standard: command, deep: command }).strict()], {
        error: 'agent.command must be a shell command (a string) or { fast, standard, deep } commands, one per tier',
      })
      .describe(
        'The agent CLI, run with /bin/sh -c in projectDir with the prompt on ' +
          'stdin (it may read $COLLIE_AGENT_ROLE, $COLLIE_AGENT_TIER, ' +
          '$COLLIE_AGENT_MODEL), or one command per tier { fast, standard, deep }.',
      ),
    timeoutS: z
      .number()
      .positive()
      .default(600)
      .describe('Hard timeout of one agent call in seconds; its process group is killed past it. Default 600.'),
    usagePattern: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A regex with named groups input and output (or total) finding the token ' +
          'usage in the agent output (SC4 counts it); without it tokens are ' +
          'estimated as characters / 4.',
      ),
    replyField: z
      .string()
      .regex(/^[\w-]+(\.[\w-]+)*$/, 'replyField must be a dot-separated path such as result or message.text')
      .optional()
      .describe(
        'The reply is this field of a JSON object the agent prints (e.g. ' +
          '"result" for claude -p --output-format json); usagePattern still reads ' +
          'the raw output. Default: the whole output is the reply.',
      ),
    logDir: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Where each call's output is logged, relative to the config file. " +
          'Default <stateRoot>/autoiter/<projectId>/agent-logs.',
      ),
    sandbox: z
      .enum(['auto', 'bwrap', 'none'])
      .default('auto')
      .describe(
        'Confine each agent call with bubblewrap to its working directory, ' +
          'writable and a private /tmp: auto (when bwrap works here, else ' +
          'unconfined with a warning), bwrap (required), none. Default auto (issue ' +
          '12: the agent confined where the platform allows). An agent CLI that ' +
          'keeps state in its home needs it in writable (e.g. "~/.claude"); collie ' +
          'commits each FIX itself, so the agent needs no .git access.',
      ),
    writable: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Extra writable paths inside the sandbox, relative to the config file, ' +
          'absolute or ~/... (e.g. ".git", "~/.claude").',
      ),
    network: z
      .boolean()
      .default(true)
      .describe('Allow network inside the sandbox (an agent CLI calls its model API). Default true.'),
  })
  .strict();

/**
 * zod schema of the `trigger:` block of a collie config (the sandbox of the run spec's trigger: Stages 2, 3.2, 5.3).
 */
export const collieTriggerConfigSchema = z
  .object({
    sandbox: z
      .enum(['auto', 'bwrap', 'none'])
      .default('auto')
      .describe(
        'Confine the trigger with bubblewrap to the worktree, writable and a ' +
          'private /tmp: auto (when bwrap works here, else unconfined with a ' +
          'warning), bwrap (required), none (for a trigger that needs GPUs or ' +
          'caches outside the worktree). Default auto.',
      ),
    writable: z
      .array(z.string().min(1))
      .default([])
      .describe('Extra writable paths inside the sandbox, relative to the config file, absolute or ~/....'),
    network: z.boolean().default(false).describe('Allow network inside the sandbox. Default false.'),
  })
  .strict();

/** zod schema of the `flow:` block of a collie config (Stage 5.1's flow executor). */
export const collieFlowConfigSchema = z
  .object({
    type: z
      .enum(['pipeline', 'agent'])
      .default('pipeline')
      .describe(
        'pipeline: the full collie:flow (TDD, implement, review, simplify, ' +
          'regression, final review); agent: one "flow" dispatch per FIX. Default ' +
          'pipeline.',
      ),
    testCommand: command
      .optional()
      .describe(
        'pipeline: the regression command (run in the worktree; must exit 0), ' +
          'e.g. "npm test". Required for type pipeline.',
      ),
    reproCommand: command.optional().describe('pipeline: runs one reproduction test ({file} is replaced by its path).'),
    reviewRounds: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('pipeline: review → implement rounds at most. Default 2.'),
    finalReview: z.boolean().optional().describe('pipeline: run the final review (deep tier). Default true.'),
    timeoutS: z
      .number()
      .positive()
      .optional()
      .describe('pipeline: hard timeout of one test / repro command in seconds. Default 600.'),
    sandbox: z
      .enum(['auto', 'bwrap', 'none'])
      .default('auto')
      .describe(
        'pipeline: confine each test / repro command with bubblewrap to the ' +
          'worktree, writable and a private /tmp: auto (when bwrap works here, else ' +
          'unconfined with a warning), bwrap (required), none. Default auto.',
      ),
    writable: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'pipeline: extra writable paths inside the sandbox, relative to the ' +
          'config file, absolute or ~/... (e.g. a cache folder).',
      ),
    network: z.boolean().default(false).describe('pipeline: allow network inside the sandbox. Default false.'),
  })
  .strict()
  .refine((f) => f.type !== 'pipeline' || f.testCommand !== undefined, {
    message: 'missing required field for type pipeline (expected string)',
    path: ['testCommand'],
  });

/**
 * zod schema of a `loop collie` config file. Fields map onto `createAutoiter` options of
 * `@loop/collie`; relative paths resolve against the config file's directory.
 */
export const collieConfigSchema = z
  .object({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors.'),
    projectId: id('projectId').describe("The project id: collie's files live under <stateRoot>/autoiter/<projectId>."),
    sessionId: id('sessionId')
      .default('cli')
      .describe('The session id (names <stateRoot>/state/<sessionId>/last-plan.json). Default "cli".'),
    projectDir: z
      .string()
      .min(1)
      .default('.')
      .describe('The project (a git repository when worktree is true), relative to the config file. Default ".".'),
    task: z.string().trim().min(1, 'task must not be empty').describe('The task, copied verbatim into the run spec.'),
    stateRoot: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Root of collie\'s files, relative to the config file ("~/" is the home directory). Default ~/.collie.',
      ),
    scalarExtraction: regex('scalarExtraction')
      .optional()
      .describe(
        "A regex finding the scalar in the trigger's log (group 1, or the first " +
          'number after the match). Default ^score:\\s*(\\S+).',
      ),
    maxIterations: z.number().int().positive().optional().describe('budget.max_iterations (SC1). Default 5.'),
    maxTokens: limit
      .optional()
      .describe('budget.max_tokens over every agent dispatch (SC4), or "unlimited". Default unlimited.'),
    maxWallclockMin: limit
      .optional()
      .describe('budget.max_wallclock_min (SC4 and the trigger timeout), or "unlimited". Default unlimited.'),
    agent: collieAgentConfigSchema.describe('The sub-agent CLI: { command, timeoutS, usagePattern?, logDir? }.'),
    answers: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A YAML/JSON file answering Stage 0's Q1-Q5 (a queued run), relative to " +
          'the config file. Without it the questions are asked on the terminal ' +
          '(interactive).',
      ),
    worktree: z
      .boolean()
      .default(true)
      .describe(
        'true: the run works in a git worktree .worktrees/autoiter-<runId> of ' +
          'projectDir; false: directly in projectDir. Default true.',
      ),
    flow: collieFlowConfigSchema
      .optional()
      .describe(
        "Stage 5.1's flow executor: { type: pipeline, testCommand, ... } or { type: agent }. Default { type: agent }.",
      ),
    trigger: collieTriggerConfigSchema
      .default({ sandbox: 'auto', writable: [], network: false })
      .describe(
        'The sandbox of the trigger command: { sandbox, writable, network }. ' +
          'Default { sandbox: auto, network: false }.',
      ),
    blockingPatterns: z
      .array(regex('a blocking pattern'))
      .optional()
      .describe("Regexes that mark a blocking issue in the trigger's log while it runs (the trigger is killed)."),
    deepVerifyConcurrency: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Stage 4b deep-verify agents at once. Default 4.'),
    notify: command
      .optional()
      .describe(
        'A shell command run on terminal events (bash -c, with ' +
          'COLLIE_AUTOITER_EVENT, _RUN_ID, _STATUS_FILE). Default ' +
          '$COLLIE_AUTOITER_NOTIFY_CMD.',
      ),
  })
  .strict();

/** A collie config file as written (defaults not applied). */
export type CollieConfigInput = z.input<typeof collieConfigSchema>;
/** A validated collie config file, defaults applied. */
export type CollieConfig = z.output<typeof collieConfigSchema>;

/**
 * The JSON Schema of a collie config file, generated from {@link collieConfigSchema} (shipped as
 * `schema/collie-config.schema.json`).
 */
export function collieConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(collieConfigSchema, { io: 'input', target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
  return { ...schema, title: 'loop collie config (the collie autoiter pipeline)' };
}

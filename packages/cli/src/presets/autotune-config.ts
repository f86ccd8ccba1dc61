import { z } from 'zod';
import type { ConfigKind } from '../load-config.js';

const command = (what: string) => z.string().trim().min(1, `${what} must not be empty`);

/**
 * zod schema of a `loop` config with `preset: autotune`: seed 004's controller
 * (`@loop/autotune`'s `runControllerIteration`, one round per iteration) with a round worker made
 * of two shell commands, an optional sync-check command, and git commits through
 * `createGitCommitter`. Paths are relative to the config file's folder.
 */
export const autotunePresetSchema = z
  .object({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors.'),
    preset: z.literal('autotune').describe('The preset: a seed 004 autotune loop.'),
    dir: z
      .string()
      .min(1)
      .default('.')
      .describe(
        'The app repository (code commits go here), relative to the config file. ' +
          'Default ".". Its .gitignore must ignore projects/ (the control files).',
      ),
    artifactDir: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The private artifact workspace (a git repository), relative to the ' +
          'config file. Default none: the control files stay uncommitted in ' +
          'projects/autotune/.',
      ),
    worker: z
      .object({
        improveCommand: command('worker.improveCommand').describe(
          "Makes the round's code changes in dir (e.g. an agent CLI); gets the " +
            'round context as JSON on stdin (round, scoreboard, excluded, failing). ' +
            'Its last output line may be JSON {"summary": "...", "targets": ["<task ' +
            'id>", ...], "changed": true}; otherwise that line is the summary and the ' +
            'targets are the failing tasks.',
        ),
        evaluateCommand: command('worker.evaluateCommand').describe(
          'Evaluates the code in dir; its last output line is JSON {"tasks": ' +
            '[{"id", "passed", "priority"?, "detail"?}], "rationales"?: {"<id>": ' +
            '"..."}}.',
        ),
        timeoutS: z.number().positive().default(600).describe('Hard timeout of one command in seconds. Default 600.'),
      })
      .strict()
      .describe('The round worker, as shell commands.'),
    syncCommand: command('syncCommand')
      .optional()
      .describe(
        'The sync check (seed 004 "Verify sync"): run after the code commit; a ' +
          'non-zero exit fails the round with its output as the reason. Default ' +
          'none.',
      ),
    maxIterations: z.number().int().min(1).default(20).describe('Rounds to run in this call at most. Default 20.'),
    maxFailedAttempts: z
      .number()
      .int()
      .min(1)
      .default(3)
      .describe('Failed attempts after which a task is parked in cannot_handle_group.txt (seed 004). Default 3.'),
    author: z
      .object({ name: z.string().min(1), email: z.string().min(3) })
      .strict()
      .default({ name: 'loop autotune', email: 'autotune@loop.invalid' })
      .describe("The commits' author."),
  })
  .strict();

/** A validated `preset: autotune` config, defaults applied. */
export type AutotunePresetConfig = z.output<typeof autotunePresetSchema>;

/** The JSON Schema of an autotune preset config. */
export function autotunePresetJsonSchema(): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(autotunePresetSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>),
    title: 'loop config (preset autotune)',
  };
}

/** The config kind of `preset: autotune`, for the shared loaders (`file:line` errors). */
export const AUTOTUNE_CONFIG_KIND: ConfigKind<typeof autotunePresetSchema> = {
  schema: autotunePresetSchema,
  jsonSchema: autotunePresetJsonSchema,
};

/** The commented starter config of `loop init --preset autotune`; it validates as written. */
export function autotuneStarterConfig(): string {
  return `# loop config, preset autotune (seed 004): one round per iteration: improve (worker.improveCommand),
# code commit, sync check, evaluate (worker.evaluateCommand), scoreboard, changelog,
# loop_state.json; tasks that fail maxFailedAttempts times are parked in
# eval/config/cannot_handle_group.txt. "loop run" continues from loop_state.json every time
# ("loop resume" is the same); "loop status" reads it. Add projects/ to dir's .gitignore.
preset: autotune
dir: .
# artifactDir: ../artifacts    # a git repository for the control files (seed 004's private workspace)

worker:
  # The round's code changes; the round context (JSON) on stdin. Last line: optional JSON
  # {"summary": "...", "targets": ["task-id"], "changed": true}.
  improveCommand: claude -p --permission-mode acceptEdits
  # Last line: {"tasks": [{"id": "clamp", "passed": true}, ...], "rationales": {}}.
  evaluateCommand: node eval/run.mjs
  timeoutS: 600

# syncCommand: npm run build   # rebuild the evaluation target from the commit; non-zero = out of sync
maxIterations: 20
maxFailedAttempts: 3
`;
}

import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { SCHEMA_HINT } from './starter-config.js';
import { schemaModeline, schemaRefFor } from './schema-ref.js';
import { UsageError } from './usage-error.js';
import { ConfigFileError } from './load-config.js';
import type { TargetType } from './resolve-run-config.js';

/** Options of {@link targetStarterConfig}: the target and its type's extras. */
export interface TargetInitOptions {
  /** The target type (seed 001). */
  type: TargetType;
  /** The target path, relative to the config's folder (the workspace). */
  path: string;
  /** memory: one agent's subfolder. */
  agent?: string;
  /** memory: the question set, relative to the workspace. */
  questions?: string;
  /** code: the evaluation command (seed 001: 用户指定 eval_command, e.g. "pytest --tb=short -q"). Required for code. */
  evalCommand?: string;
}

const WHAT: Record<TargetType, string> = {
  skill:
    'the skill evaluator (8 weighted dimensions: frontmatter, ' +
    'trigger_quality, workflow, constraints, io_spec, examples, clarity, ' +
    'size)',
  'skill-full': 'the skill-full evaluator (definition, code, conventions, consistency)',
  memory: 'the memory evaluator (retrieval hit rate on the question set, signal/noise, index health)',
  code: 'your evaluation command',
};

const MAY: Record<TargetType, string> = {
  skill: 'You may change the triggers, workflow, constraints and structure of that one file.',
  'skill-full': 'You may change any file in the skill folder: SKILL.md and its scripts.',
  memory:
    'You may add, delete, merge, split, rename and edit memory files and ' +
    'rewrite the index; keep every fact the questions ask about.',
  code: 'You may change the code of the target file only.',
};

/** The seed 001 strategy guidance every round's agent is given (the goal of the agent proposer). */
export function targetGoal(type: TargetType, path: string): string {
  return [
    `Raise the score ${WHAT[type]} gives ${path}. ${MAY[type]}`,
    'Make one focused change per round, so its effect can be attributed. Go ' +
      'for low-hanging fruit first: missing fields, redundant content, wrong ' +
      'constraints.',
    'Simpler is better: deleting content without lowering the score is the ' +
      'best result. Never retry verbatim a change that results.tsv shows as ' +
      'discarded.',
    'You CANNOT change the evaluation, install dependencies, or touch files outside the target (results.tsv excepted).',
  ].join('\n');
}

const quote = (s: string) => JSON.stringify(s);

/**
 * The starter config of `loop init --target <type> <path>` (seed 001's `/auto-iterate
 * <target-type> <target-path>`): the target block, seed 001's 5-minute round timeout, and an
 * agent proposer whose goal carries the seed's strategy guidance. It validates as is.
 *
 * @param schema the first line's `$schema` (`null` leaves the line out). @default {@link SCHEMA_HINT}
 * @throws {ConfigFileError} `CONFIG_INVALID` for `code` without `evalCommand`, or `agent`/`questions` on another type.
 */
export function targetStarterConfig(
  o: TargetInitOptions,
  file = 'loop.config.yaml',
  schema: string | null = SCHEMA_HINT,
): string {
  if (o.type === 'code' && !o.evalCommand)
    throw new ConfigFileError(file, [
      {
        path: 'runCommand',
        message: 'target type code needs its evaluation command: loop init --target code FILE --eval "<command>"',
      },
    ]);
  if (o.type !== 'memory' && (o.agent || o.questions))
    throw new ConfigFileError(file, [
      { path: 'target', message: '--agent and --questions are for --target memory only' },
    ]);
  const target = [
    `  type: ${o.type}`,
    `  path: ${quote(o.path)}`,
    ...(o.agent ? [`  agent: ${quote(o.agent)}`] : []),
    ...(o.questions ? [`  questions: ${quote(o.questions)}`] : []),
  ];
  const run =
    o.type === 'code'
      ? [
          `# The evaluation: a command that prints "score: <n>" (edit metricName, ` +
            `direction or pattern to match yours).`,
          `runCommand: ${quote(o.evalCommand!)}`,
          'metricName: score',
          'direction: higher',
        ]
      : [
          `# The built-in evaluator (@loop/evaluators, loop-evaluate ${o.type}) is the run command: it prints one`,
          '# "dim.<name>: <n>" line per dimension and "score: <n>"; higher is better. It ships in the package,',
          '# outside the workspace, and is fingerprinted: a change to it stops the run (HARNESS_TAMPERED).',
        ];
  return (
    `${schemaModeline(schema ?? undefined)}# loop config, preset auto-iterate, target ${o.type} (seed 001: ` +
    `/auto-iterate ${o.type} ${o.path}).
# Run it with "loop run". Every round is committed as "auto-iterate: <change>" on the branch
# auto-iterate/<date>-<target>; a change that does not raise the score is reset. results.tsv
# (commit score status description)${o.type === 'code' ? '' : ' and dimensions.tsv'} go in the target's folder, ` +
    `never tracked by git.
preset: auto-iterate
dir: .

target:
${target.join('\n')}

${run.join('\n')}

# Seed 001: a round over 5 minutes is a crash.
timeBudgetS: 300
killTimeoutS: 300
# Rounds after the baseline (0 = until Ctrl-C; seed 001: LOOP FOREVER).
maxIterations: 20

# Each round is a fresh agent process given the target, results.tsv and the round number.
proposer:
  type: agent
  command: claude -p
  timeoutS: 600
  goal: ${quote(targetGoal(o.type, o.path))}

# Seed 001's crash rules: a simple crash is repaired up to 2 times within the round; 3 crashes
# in a row pause with a strategy review; 5 discards in a row cool down one round, then favour
# structural changes.
maxRepairAttempts: 2
pauseAfterCrashes: 3
cooldownAfterDiscards: 5
`
  );
}

/**
 * Writes {@link targetStarterConfig} to `path`, its `$schema` naming the JSON Schema this CLI ships by a path relative
 * to `path` (`schemaRefFor`).
 *
 * @throws {UsageError} when `path` exists and `force` is not set.
 * @throws {ConfigFileError} `CONFIG_INVALID` for invalid options.
 */
export async function writeTargetConfig(path: string, options: TargetInitOptions, force = false): Promise<void> {
  if (existsSync(path) && !force)
    throw new UsageError(
      `loop init: ${path} already exists; pass --force to overwrite it, or name another file with --config <file>`,
    );
  await writeFile(path, targetStarterConfig(options, path, schemaRefFor(path) ?? null));
}

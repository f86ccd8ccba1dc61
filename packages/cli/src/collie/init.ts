import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { ConfigFileError } from '../load-config.js';
import { schemaModeline, schemaRefFor } from '../schema-ref.js';

/**
 * The `$schema` of {@link collieStarterConfig} when none is given: the collie config's JSON Schema when `@loop/cli` is
 * installed in the config's folder (`loop init` writes the path of the running CLI's schema instead).
 */
export const COLLIE_SCHEMA_HINT = './node_modules/@loop/cli/schema/collie-config.schema.json';

/**
 * The commented starter `collie.config.yaml` written by `loop collie init`; it validates as written.
 *
 * @param schema its first line, `# yaml-language-server: $schema=<schema>`; `null` leaves the line out. @default {@link
 * COLLIE_SCHEMA_HINT}
 */
export function collieStarterConfig(schema?: string | null): string {
  return (
    `${schemaModeline(schema === undefined ? COLLIE_SCHEMA_HINT : (schema ?? undefined))}# loop collie config: ` +
    `the collie autoiter pipeline (seed 000) over a project.
#   loop collie step      one resumable unit (what an agent host runs per session)
#   loop collie run       step to the end (converged / budget_exhausted / escalated)
#   loop collie status    where the run stands (reads the files, takes no lock)
# Relative paths below resolve against this file's folder.

# The project id: collie's files live under <stateRoot>/autoiter/<projectId>.
projectId: my-app
# sessionId: cli          # names <stateRoot>/state/<sessionId>/last-plan.json
# The project: a git repository with at least one commit (the run works in a worktree).
projectDir: .
# stateRoot: ~/.collie    # default ~/.collie

# The task, copied verbatim into the run spec.
task: make the test suite green

# The trigger's scalar: a regex, group 1 (or the first number after the match). Higher is better.
scalarExtraction: '^score:\\s*(\\S+)'

# Budget (SC1 and SC4): iterations, agent tokens, wall clock minutes ("unlimited" allowed).
maxIterations: 5
maxTokens: 2000000
maxWallclockMin: 240

# The sub-agent CLI: the prompt arrives on stdin; $COLLIE_AGENT_ROLE (discovery, observe, diagnose,
# triage, deep-verify, flow-*), $COLLIE_AGENT_TIER (fast, standard, deep) and $COLLIE_AGENT_MODEL
# (haiku, sonnet, opus) are set. One command, or one per tier: { fast: ..., standard: ..., deep: ... }.
agent:
  command: claude -p --output-format json --model "$COLLIE_AGENT_MODEL"
  timeoutS: 600
  # The reply is the "result" field of the JSON envelope --output-format json prints.
  replyField: result
  # SC4 counts the tokens the agent reports; without a match they are estimated (characters / 4).
  usagePattern: '"input_tokens":\\s*(?<input>\\d+)[\\s\\S]*?"output_tokens":\\s*(?<output>\\d+)'
  # logDir: agent-logs    # default <stateRoot>/autoiter/<projectId>/agent-logs

# Stage 0's five questions (Q1 trigger, Q2 success criterion, Q3 primary goal, Q4 rollback policy,
# Q5 skip prepare): without "answers" they are asked on the terminal (interactive run); with a
# YAML file of Q1..Q5 the run is queued, e.g.
#   Q1: npm test
#   Q2: all_green
#   Q3: correctness
# answers: answers.yaml

# true: work in a git worktree .worktrees/autoiter-<runId> on branch autoiter/<runId> (the user's
# checkout is never touched); false: work directly in projectDir.
worktree: true

# Stage 5.1: the full collie:flow pipeline per FIX (TDD, implement, review, simplify, regression,
# final review), or { type: agent } for one "flow" dispatch per FIX.
flow:
  type: pipeline
  testCommand: npm test
  # reproCommand: node --test {file}
  # reviewRounds: 2
  # finalReview: true
  # timeoutS: 600
  # The test / repro commands run in a bubblewrap sandbox where it works (the worktree writable).
  # sandbox: auto          # auto | bwrap | none
  # writable: []           # extra writable paths, e.g. [~/.cache/my-tool]
  # network: false

# The trigger (Q1) runs in the same sandbox by default; none for a suite that needs a GPU or caches.
# trigger: { sandbox: auto, writable: [], network: false }

# blockingPatterns: ['^FATAL', 'out of memory']   # kill the trigger when its log shows one
# deepVerifyConcurrency: 4
# notify: notify-send "collie $COLLIE_AUTOITER_EVENT"   # default $COLLIE_AUTOITER_NOTIFY_CMD
`
  );
}

/**
 * Writes the starter collie config to `path`, its `$schema` modeline naming the collie schema this
 * CLI ships by a path relative to `path` (`schemaRefFor`; left out if that file is missing).
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` when `path` exists and `force` is not set.
 */
export async function writeCollieStarterConfig(path: string, force = false): Promise<void> {
  if (existsSync(path) && !force) {
    throw new ConfigFileError(path, [
      { path: '', message: 'the file already exists; pass --force to overwrite it, or name another file' },
    ]);
  }
  await writeFile(path, collieStarterConfig(schemaRefFor(path, 'collie') ?? null));
}

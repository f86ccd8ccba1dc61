import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createFunctionPassHarness,
  createReflectionScorer,
  createTestGate,
  resolvePassConfig,
  runPass,
  type PassResult,
} from '@loop/autoresearch';
import type { Clock } from '@loop/core';
import { createSnapshotRollback } from '@loop/rollback-snapshot';
import { createScriptedProposer, loadSteps, type ScriptedStep } from './proposer.js';

/** The template workspace: the module, its tests, the reflection script and the rubric files. */
export const TEMPLATE = join(import.meta.dirname, '..', 'template');
/** The task id; names the run directory `.aid/pipeline/autoresearch/T-7`. */
export const TASK_ID = 'T-7';
/** The function the task changed: the only mutable file. */
export const MODULE = 'src/slug.js';
/** The harness's scripts besides the rubric: the test runner and the reflection tool. */
export const HARNESS_FILES = ['test/run-tests.mjs', 'tools/reflect.mjs'];
/** {{MIN_COVERAGE}}: line coverage of src/slug.js below this makes the composite 0. */
export const MIN_COVERAGE_PCT = 90;
/** `config.autoresearch` of the example (kpi_target: the default 9.5). */
export const AUTORESEARCH_CONFIG = {
  ar_function: { max_iterations: 8, max_consecutive_reverts: 4, internal_rounds: 2 },
};

const git = (cwd: string, ...args: string[]) =>
  execFileSync(
    'git',
    [
      '-c',
      'user.name=autoresearch-example',
      '-c',
      'user.email=autoresearch@example.invalid',
      '-c',
      'commit.gpgsign=false',
      ...args,
    ],
    { cwd, encoding: 'utf8' },
  );

/**
 * Copies the template into `workspace` (which must be absent or empty) and makes it a git
 * repository whose last commit has everything but src/slug.js: the task's new, uncommitted module
 * is the mutable surface that @loop/rollback-snapshot reads from git status.
 */
export function setUpWorkspace(workspace: string): void {
  if (existsSync(workspace) && readdirSync(workspace).length > 0)
    throw new Error(`${workspace} is not empty: the example needs a fresh workspace`);
  cpSync(TEMPLATE, workspace, { recursive: true });
  writeFileSync(join(workspace, '.gitignore'), '.aid/\ncoverage/\n');
  git(workspace, 'init', '-q', '-b', 'main');
  git(workspace, 'add', '-A', '--', '.', `:!${MODULE}`);
  git(workspace, 'commit', '-q', '-m', 'tests, reflection script and rubric for T-7');
}

/** What {@link runExample} returns. */
export interface ExampleRun {
  readonly workspace: string;
  readonly result: PassResult;
  /** Every chat line and the summary, as printed. */
  readonly lines: string[];
}

/**
 * Runs the example: a fresh workspace from the template, then one AR-2 function pass with
 * `runPass` (Tier-1 gates: `node test/run-tests.mjs` green and line coverage ≥ 90%; reflection:
 * `node tools/reflect.mjs`), the scripted proposer and the snapshot rollback.
 */
export async function runExample(
  workspace: string,
  options: { output?: (line: string) => void; steps?: ScriptedStep[]; clock?: Clock } = {},
): Promise<ExampleRun> {
  setUpWorkspace(workspace);
  const lines: string[] = [];
  const output = (line: string) => {
    lines.push(line);
    options.output?.(line);
  };
  const runDir = join(workspace, '.aid/pipeline/autoresearch', TASK_ID);
  const result = await runPass({
    workspace,
    taskId: TASK_ID,
    config: resolvePassConfig('function', AUTORESEARCH_CONFIG),
    harness: createFunctionPassHarness({
      gates: createTestGate({
        workspace,
        command: [process.execPath, 'test/run-tests.mjs'],
        minCoveragePct: MIN_COVERAGE_PCT,
      }),
      reflection: createReflectionScorer({
        workspace,
        command: [process.execPath, 'tools/reflect.mjs'],
        dimensions: ['quality'],
      }),
    }),
    proposer: createScriptedProposer(workspace, options.steps ?? loadSteps(), MODULE),
    rollback: createSnapshotRollback({ workspace, runDir, ...(options.clock ? { clock: options.clock } : {}) }),
    rubricFiles: [join(workspace, 'criteria/ar-function.yaml'), join(workspace, '.claude/agents/reflection-agent.md')],
    // The harness's own scripts: an edit to either halts the pass as harness-tampered (seed 002: never edit the
    // harness).
    harnessFiles: HARNESS_FILES.map((f) => join(workspace, f)),
    output,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { workspace, result, lines };
}

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createAutoiter,
  createAnswersFileAsker,
  createFlowPipelineExecutor,
  createGitWorktree,
  type Agent,
  type FlowExecutor,
  type AutoiterStepOutcome,
} from '@loop/collie';
import { scriptedAgents } from './agents.js';

const template = join(dirname(dirname(fileURLToPath(import.meta.url))), 'template');

/** The template's own test command (`npm test`): the flow pipeline's regression suite. */
export const TEST_COMMAND = (
  JSON.parse(readFileSync(join(template, 'package.json'), 'utf8')) as { scripts: { test: string } }
).scripts.test;
/** Runs only the reproduction test a FIX's TDD step added. */
export const REPRO_COMMAND = 'node --test {file}';

/**
 * Where the flow pipeline writes `<FIX-id>.flow.md` of iteration N: `<run>/iter-N/flow/` (its default), outside the
 * worktree.
 */
export const flowLogDir = (runDir: string, iter: number) => join(runDir, `iter-${iter}`, 'flow');

/**
 * Stage 5.1: collie's flow pipeline (TDD → implement → review → simplify → regression → final
 * review) driven by the metered agent; its transcripts go to `<run>/iter-N/flow/` (the default).
 */
export const flowPipeline = (agent: Agent): FlowExecutor =>
  createFlowPipelineExecutor({ agent, testCommand: TEST_COMMAND, reproCommand: REPRO_COMMAND });

/** Where the example put things. */
export interface ExampleResult {
  readonly outcomes: AutoiterStepOutcome[];
  /** The user's repository (never modified by the run). */
  readonly repo: string;
  /** The run's worktree (branch autoiter/<runId>), preserved at the end. */
  readonly worktree: string;
  /** The run's files: state.json, status.md, iter-1/... */
  readonly runDir: string;
  readonly runId: string;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'example',
      GIT_AUTHOR_EMAIL: 'example@localhost',
      GIT_COMMITTER_NAME: 'example',
      GIT_COMMITTER_EMAIL: 'example@localhost',
    },
  });

/**
 * Copies the tiny-stats library into `<dir>/repo` (a git repository with one commit), answers
 * Stage 0 from `<dir>/answers.yaml` (a queued run) and drives collie's autoiter to the end with
 * scripted agents: observe → triage → deep verify → fix-plan → flow pipeline, one commit per FIX →
 * G6/G1 audit → rerun → rollback matrix + stop checks.
 */
export async function runExample(
  dir: string,
  output: (line: string) => void = (l) => console.log(l),
): Promise<ExampleResult> {
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  cpSync(template, repo, { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'tiny-stats 1.0.0');
  const answers = join(dir, 'answers.yaml');
  writeFileSync(
    answers,
    [
      'Q1: node scripts/scorecard.js',
      'Q2: scalar_threshold 6',
      'Q3: correctness',
      'Q4: kind_aware',
      'Q5: "yes"',
      '',
    ].join('\n'),
  );
  let worktreeFile = '';
  const autoiter = createAutoiter({
    projectId: 'tiny-stats',
    sessionId: 'example',
    projectDir: repo,
    task: 'make every check of the tiny-stats scorecard pass',
    files: { stateRoot: join(dir, 'collie') },
    score: { scalarExtraction: '^passed:\\s*(\\d+)' },
    stop: { maxIterations: 3 },
    agent: scriptedAgents(() => readFileSync(worktreeFile, 'utf8').trim()),
    flow: flowPipeline,
    asker: createAnswersFileAsker(answers),
    workspace: createGitWorktree({ repoDir: repo }),
    env: {},
    output,
  });
  const read = (p: string) => readFileSync(p, 'utf8').trim();
  const outcomes: AutoiterStepOutcome[] = [];
  for (;;) {
    const out = await autoiter.step();
    outcomes.push(out);
    if ('runId' in out) worktreeFile = autoiter.paths.run(out.runId).worktreePath;
    if (out.kind === 'done' || out.kind === 'nested-refused') break;
  }
  const runId = (outcomes.at(-1) as { runId: string }).runId;
  return { outcomes, repo, worktree: read(worktreeFile), runDir: autoiter.paths.run(runId).dir, runId };
}

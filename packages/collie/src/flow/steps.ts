import { join } from 'node:path';
import { LoopError } from '@loop/core';
import { type SandboxPlan, type SandboxSpec } from '@loop/core/process';
import type { FlowFixContext } from '../flow-executor.js';
import type { FlowPipelineSettings } from '../flow-pipeline.js';
import {
  FLOW_STEPS,
  fixYaml,
  resolveReproCommand,
  implementPrompt,
  parseVerdict,
  renderChangedFiles,
  reviewPrompt,
  simplifyPrompt,
  tddPrompt,
  type FlowAgentStep,
} from './prompts.js';
import { runFlowCommand, type FlowCommandOutcome } from './run-command.js';
import {
  diffTreeSnapshots as diffSnapshots,
  type TreeChange,
  type TreeSnapshot,
  type TreeSnapshotStore,
} from '@loop/rollback-snapshot';
import type { FlowTranscript } from './transcript.js';

/** Thrown inside the pipeline to skip the FIX: the worktree is restored and `skipped: <reason>` returned. */
export class SkipFix {
  constructor(readonly reason: string) {}
}

/** The state of one FIX going through the pipeline. */
export interface FlowRun {
  readonly o: FlowPipelineSettings;
  /** The resolved sandbox of the commands (core `planSandbox`): the worktree is their writable path. */
  readonly sandbox: SandboxPlan;
  readonly ctx: FlowFixContext;
  /** The worktree's snapshot store (@loop/rollback-snapshot). */
  readonly store: TreeSnapshotStore;
  /** The worktree before the FIX (restore point). */
  readonly base: TreeSnapshot;
  /** The worktree after the last step. */
  last: TreeSnapshot;
  readonly transcript: FlowTranscript;
  /** Private temp dir for command logs (outside the worktree). */
  readonly tmp: string;
  commands: number;
  /** The new reproduction test files written by the TDD step, and their content hashes. */
  reproFiles: string[];
  readonly reproHashes: Map<string, string>;
  /** Changed paths outside the FIX's key files, over all steps. */
  readonly outside: Set<string>;
  /** Whether the TDD step runs. */
  readonly tdd: boolean;
}

function checkAborted(run: FlowRun): void {
  if (run.ctx.signal?.aborted)
    throw new LoopError(
      'PROPOSER_FAILED',
      `[loop] [collie] flow of ${run.ctx.fix.id} was aborted; the worktree was restored`,
      { details: { fix: run.ctx.fix.id, aborted: true } },
    );
}

/** Re-reads the worktree; returns what changed since the last step and the warnings about it. */
async function settle(run: FlowRun): Promise<{ changes: TreeChange[]; warnings: string[] }> {
  const now = await run.store.snapshot();
  const changes = diffSnapshots(run.last, now);
  run.last = now;
  const keys = new Set(run.ctx.fix.key_files);
  const outside = changes.filter((c) => !keys.has(c.path)).map((c) => c.path);
  for (const p of outside) run.outside.add(p);
  const tests = changes.filter(
    (c) =>
      run.o.testFilePattern.test(c.path) &&
      !run.reproFiles.includes(c.path) &&
      !(c.status === 'added' && keys.has(c.path)),
  );
  const warnings = [
    ...(outside.length > 0 ? [`outside key_files (recorded, not blocked; G6 audits them): ${outside.join(', ')}`] : []),
    ...(tests.length > 0
      ? [`test files changed (G1 audits them): ${tests.map((c) => `${c.path} (${c.status})`).join(', ')}`]
      : []),
  ];
  return { changes, warnings };
}

async function ask(
  run: FlowRun,
  step: FlowAgentStep,
  prompt: string,
  extra: Readonly<Record<string, string>> = {},
): Promise<string> {
  const { role, tier } = FLOW_STEPS[step];
  const { fix, planText, signal } = run.ctx;
  const reply = await run.o.agent.run({
    role,
    tier,
    prompt,
    inputs: { [`${fix.id}.yaml`]: fixYaml(fix), 'fix-plan.md': planText, ...extra },
    ...(signal ? { signal } : {}),
  });
  const { changes, warnings } = await settle(run);
  run.transcript.agent(role, tier, reply, changes, warnings);
  checkAborted(run);
  return reply;
}

function spec(run: FlowRun): { sandbox?: SandboxSpec } {
  const sandbox = run.sandbox([run.ctx.worktree]);
  return sandbox ? { sandbox } : {};
}

async function command(
  run: FlowRun,
  label: string,
  commandText: string,
  expect: 'red' | 'green',
): Promise<FlowCommandOutcome> {
  run.commands += 1;
  const { o, ctx } = run;
  const outcome = await runFlowCommand({
    command: commandText,
    cwd: ctx.worktree,
    env: { ...process.env, ...o.env, COLLIE_AUTOITER_ACTIVE: '1' },
    logPath: join(run.tmp, `${run.commands}.log`),
    timeoutMs: o.timeoutMs,
    graceMs: o.graceMs,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.pidDir ? { pidFile: join(ctx.pidDir, `flow-${ctx.fix.id}-${run.commands}.pgid`) } : {}),
    ...spec(run),
  });
  const { changes, warnings } = await settle(run);
  const verdict = outcome.passed === (expect === 'green') ? `${expect} as required` : `expected ${expect}`;
  run.transcript.command(
    label,
    outcome,
    [
      verdict,
      ...(changes.length > 0 ? [`the command changed ${changes.map((c) => c.path).join(', ')}`] : []),
      ...warnings,
    ].join('; '),
  );
  if (outcome.aborted) checkAborted(run);
  return outcome;
}

const reproCommandOf = (run: FlowRun) =>
  resolveReproCommand(run.o.reproCommand, run.o.testCommand, run.ctx.fix, run.ctx.worktree, run.reproFiles);

/**
 * Fails the FIX when a step after TDD edited or deleted the reproduction test (it must turn green by the fix, not by an
 * edit).
 */
function guardRepro(run: FlowRun, step: string): void {
  for (const file of run.reproFiles) {
    const now = run.last.entries.get(file);
    if (now?.type !== 'file' || now.hash !== run.reproHashes.get(file))
      throw new SkipFix(`${step} changed the reproduction test ${file}`);
  }
}

async function tdd(run: FlowRun): Promise<string> {
  const { fix, worktree } = run.ctx;
  await ask(run, 'tdd', tddPrompt(fix, worktree));
  const keys = new Set(fix.key_files);
  run.reproFiles = diffSnapshots(run.base, run.last)
    .filter((c) => c.status === 'added' && keys.has(c.path) && run.o.testFilePattern.test(c.path))
    .map((c) => c.path);
  if (run.reproFiles.length === 0) throw new SkipFix('tdd wrote no new test file among the key files');
  for (const f of run.reproFiles) {
    const e = run.last.entries.get(f);
    if (e?.type === 'file') run.reproHashes.set(f, e.hash);
  }
  const red = await command(run, 'reproduction before the fix (must be red)', reproCommandOf(run), 'red');
  if (red.passed)
    throw new SkipFix(`reproduction test ${run.reproFiles.join(', ')} passes before the fix (does not reproduce)`);
  return 'tdd red→green';
}

async function implement(run: FlowRun, extra: Readonly<Record<string, string>> = {}): Promise<void> {
  await ask(run, 'implement', implementPrompt(run.ctx.fix, run.ctx.worktree, run.reproFiles), extra);
  guardRepro(run, 'implement');
}

const changedFiles = async (run: FlowRun) =>
  renderChangedFiles(run.ctx.worktree, diffSnapshots(run.base, run.last), run.o.maxReviewLines);

async function implementAndReview(run: FlowRun): Promise<string> {
  let comments: Record<string, string> = {};
  for (let round = 1; round <= run.o.reviewRounds; round += 1) {
    await implement(run, comments);
    const reply = await ask(run, 'review', reviewPrompt(run.ctx.fix, run.ctx.worktree, false), {
      'changed-files.md': await changedFiles(run),
    });
    const v = parseVerdict(reply);
    if (v.verdict === 'approve') return `review approved in ${round} round${round === 1 ? '' : 's'}`;
    const note = v.found ? '' : '\n\n(The review reply had no `verdict:` line; it counts as changes_requested.)';
    if (!v.found)
      run.transcript.note('review verdict', 'no `verdict:` line in the reply: counted as changes_requested');
    comments = { 'review-comments.md': `${reply.trim()}${note}` };
  }
  throw new SkipFix(`review not approved after ${run.o.reviewRounds} rounds`);
}

async function simplify(run: FlowRun): Promise<string | undefined> {
  const before = run.last;
  await ask(run, 'simplify', simplifyPrompt(run.ctx.fix, run.ctx.worktree), {
    'changed-files.md': await changedFiles(run),
  });
  guardRepro(run, 'simplify');
  const n = diffSnapshots(before, run.last).length;
  return n > 0 ? `simplified ${n} file${n === 1 ? '' : 's'}` : undefined;
}

/** The suite, then (when it passed and differs) the reproduction test; both must pass. */
async function regressionRun(run: FlowRun, label: string): Promise<FlowCommandOutcome[]> {
  const suite = await command(run, label, run.o.testCommand, 'green');
  const repro = reproCommandOf(run);
  if (!suite.passed || run.reproFiles.length === 0 || repro === run.o.testCommand) return [suite];
  return [suite, await command(run, `${label}: reproduction (must be green)`, repro, 'green')];
}

async function regression(run: FlowRun): Promise<{ note: string; log: string }> {
  const runs = async (label: string) => {
    const rs = await regressionRun(run, label);
    return {
      passed: rs.every((r) => r.passed),
      describe: rs.find((r) => !r.passed)?.describe ?? rs.at(-1)!.describe,
      rs,
    };
  };
  const first = await runs('regression');
  // The final reviewer sees every command of the regression (the suite's log first).
  const log = (r: { rs: FlowCommandOutcome[] }) =>
    r.rs.map((x) => `command: ${x.command}\nresult: ${x.describe}\n\n${x.tail}`).join('\n\n');
  if (first.passed) return { note: 'regression green', log: log(first) };
  await implement(run, { 'regression-log.md': log(first) });
  const second = await runs('regression after one more implement round');
  if (second.passed) return { note: 'regression green after 1 fix round', log: log(second) };
  throw new SkipFix(`regression failed (${second.describe})`);
}

async function finalReview(run: FlowRun, regressionLog: string): Promise<string> {
  const reply = await ask(run, 'finalReview', reviewPrompt(run.ctx.fix, run.ctx.worktree, true), {
    'changed-files.md': await changedFiles(run),
    'regression.md': regressionLog,
  });
  const v = parseVerdict(reply);
  if (v.verdict !== 'approve')
    throw new SkipFix(v.found ? 'final review rejected' : 'final review rejected (no verdict line)');
  return 'final review approved';
}

/**
 * Runs the steps of one FIX in order and returns the one-line success note; throws
 * {@link SkipFix} to skip (the caller restores the worktree).
 */
export async function runPipeline(run: FlowRun): Promise<string> {
  const parts: (string | undefined)[] = [];
  parts.push(
    run.tdd
      ? await tdd(run)
      : `no tdd (${run.ctx.fix.kind === 'optimization' ? 'optimization' : 'no reproduction_test'})`,
  );
  parts.push(await implementAndReview(run));
  parts.push(await simplify(run));
  const reg = await regression(run);
  parts.push(reg.note);
  if (run.o.finalReview) parts.push(await finalReview(run, reg.log));
  if (run.outside.size > 0) parts.push(`changed outside key_files: ${[...run.outside].sort().join(' ')}`);
  return `flow: ${parts.filter((p) => p !== undefined).join(', ')}`.replace(/\s*\n\s*/g, ' ');
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { ConfigError, parseOptions } from '@loop/core';
import { planSandbox, sandboxOptionsFields, type SandboxOptions, type SandboxPlan } from '@loop/core/process';
import { z } from 'zod';
import type { Agent } from './agent.js';
import { DEFAULT_TEST_FILE } from './diff-audit.js';
import type { FlowExecutor, FlowFixContext } from './flow-executor.js';
import type { FixRecord } from './records.js';
import { runPipeline, SkipFix, type FlowRun } from './flow/steps.js';
import { createTreeSnapshotStore, type TreeSnapshotStore } from '@loop/rollback-snapshot';
import { FlowTranscript } from './flow/transcript.js';

export { FLOW_STEPS, parseVerdict, resolveReproCommand } from './flow/prompts.js';
import type { ReproCommand } from './flow/prompts.js';
export type { FlowAgentStep, ReproCommand, ReviewVerdict } from './flow/prompts.js';

/** Entry names the flow never snapshots nor restores, at any depth (git metadata, installed packages). */
export const SNAPSHOT_EXCLUDED: readonly string[] = Object.freeze(['.git', 'node_modules']);

/**
 * Options of {@link createFlowPipelineExecutor}. Sandbox (core `sandbox.ts`, issue 12): the test
 * and repro commands run confined by default (`sandbox: 'auto'`: bwrap where it works here, else
 * unconfined with one warning through `onSandboxWarning`): the worktree is their only writable
 * path (plus `writable` and a private `/tmp`), the network is off unless `network: true`.
 */
export interface FlowPipelineOptions extends SandboxOptions {
  /** The sub-agent; every step is one fresh `agent.run` (roles in {@link FLOW_STEPS}). */
  agent: Agent;
  /** The regression suite, run with `/bin/sh -c` in the worktree (e.g. `node --test`); exit 0 = green. */
  testCommand: string;
  /** Runs only the reproduction test (see {@link ReproCommand}). @default testCommand */
  reproCommand?: ReproCommand;
  /** Hard timeout of one command in ms; the whole process group is killed past it. @default 600000 */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL, in ms. @default 5000 */
  graceMs?: number;
  /** Maximum review rounds (review → implement again on changes_requested). @default 2 */
  reviewRounds?: number;
  /** Run the deep-tier final review (seed's `[collie-final-review]`). @default true */
  finalReview?: boolean;
  /**
   * Absolute directory, outside the worktree, that receives `<FIX-id>.flow.md` transcripts.
   * @default `<directory of fix-plan.md>/flow`, i.e. `iter-N/flow/` of the run (FIX ids restart each iteration)
   */
  logDir?: string;
  /**
   * Absolute directory, outside the worktree, of the content-addressed store behind the flow's
   * worktree snapshots (`@loop/rollback-snapshot` `createTreeSnapshotStore`): the first FIX that
   * uses a store copies the worktree once, later snapshots cost one `lstat` per file plus the
   * files changed; contents are stored once however many FIXes and iterations see them. Safe to
   * delete when no run is active.
   * @default `<parent of the directory of fix-plan.md>/flow-snapshots`, i.e. the run's `flow-snapshots/` (fix-plan.md
   * is `<run>/iter-N/fix-plan.md`)
   */
  snapshotDir?: string;
  /** Extra environment of the commands (merged over `process.env`). */
  env?: Record<string, string>;
  /** Lines of each changed file shown to the reviewers. @default 200 */
  maxReviewLines?: number;
  /** What a test file is (the TDD step's new file, G1). @default DEFAULT_TEST_FILE */
  testFilePattern?: RegExp;
}

const absolute = (field: string) => z.string().refine((p) => isAbsolute(p), `${field} must be an absolute path`);

/** zod schema of {@link FlowPipelineOptions}. */
export const flowPipelineOptionsSchema = z.object({
  agent: z.custom<Agent>(
    (a) =>
      typeof a === 'object' &&
      a !== null &&
      typeof (a as Agent).run === 'function' &&
      typeof (a as Agent).name === 'string',
    'agent must be an Agent ({ name, run })',
  ),
  testCommand: z.string().trim().min(1, 'testCommand must not be empty'),
  reproCommand: z
    .union([
      z.string().trim().min(1, 'reproCommand must not be empty'),
      z.custom<Exclude<ReproCommand, string>>(
        (f) => typeof f === 'function',
        'reproCommand must be a string or a function',
      ),
    ])
    .optional(),
  timeoutMs: z.number().int().positive().default(600_000),
  graceMs: z.number().int().nonnegative().default(5000),
  reviewRounds: z.number().int().min(1).default(2),
  finalReview: z.boolean().default(true),
  logDir: absolute('logDir').optional(),
  snapshotDir: absolute('snapshotDir').optional(),
  env: z.record(z.string(), z.string()).default({}),
  maxReviewLines: z.number().int().positive().default(200),
  testFilePattern: z.instanceof(RegExp).default(DEFAULT_TEST_FILE),
  ...sandboxOptionsFields,
});

/** {@link FlowPipelineOptions} after validation, with defaults applied. */
export type FlowPipelineSettings = z.output<typeof flowPipelineOptionsSchema>;

/** The executor returned by {@link createFlowPipelineExecutor}. */
export interface FlowPipelineExecutor extends FlowExecutor {
  /** The validated options. */
  readonly settings: FlowPipelineSettings;
  /** The last transcript (markdown) of a FIX applied by this executor, also when `logDir` is unset. */
  readonly transcriptOf: (fixId: string) => string | undefined;
}

function assertOutside(field: 'logDir' | 'snapshotDir', dir: string, worktree: string): void {
  const rel = relative(worktree, dir);
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
    throw new ConfigError('collie flow-pipeline', [
      {
        path: field,
        message:
          `${field} ${dir} is inside the worktree ${worktree}; a skipped FIX must ` +
          `leave the worktree byte-identical, so put it outside`,
      },
    ]);
  }
}

/**
 * One snapshot store per (worktree, store directory), kept for the executor's life: its stat records make later
 * snapshots cheap.
 */
function storeFor(stores: Map<string, TreeSnapshotStore>, worktree: string, storeDir: string): TreeSnapshotStore {
  const key = `${worktree}\0${storeDir}`;
  let store = stores.get(key);
  if (store === undefined) {
    store = createTreeSnapshotStore({ root: worktree, storeDir, exclude: SNAPSHOT_EXCLUDED });
    stores.set(key, store);
  }
  return store;
}

function needsTdd(fix: FixRecord): boolean {
  // G1 (seed 000 invariant 5): only a correctness FIX may add a test file
  return fix.reproduction_test.trim() !== '' && fix.kind === 'correctness';
}

async function applyFix(
  o: FlowPipelineSettings,
  sandbox: SandboxPlan,
  ctx: FlowFixContext,
  transcripts: Map<string, string>,
  stores: Map<string, TreeSnapshotStore>,
): Promise<string> {
  const logDir = o.logDir ?? join(dirname(ctx.planPath), 'flow');
  const storeDir = o.snapshotDir ?? join(dirname(dirname(ctx.planPath)), 'flow-snapshots');
  assertOutside('logDir', logDir, ctx.worktree);
  assertOutside('snapshotDir', storeDir, ctx.worktree);
  const store = storeFor(stores, ctx.worktree, storeDir);
  const base = await store.snapshot();
  const transcript = new FlowTranscript(ctx.fix.id, [
    `worktree: ${ctx.worktree}`,
    `kind: ${ctx.fix.kind} · key files: ${ctx.fix.key_files.join(', ') || '(none)'}`,
    `tdd: ${needsTdd(ctx.fix) ? 'yes' : 'no'} · review ` +
      `rounds: ${o.reviewRounds} · final ` +
      `review: ${o.finalReview ? 'yes' : 'no'}`,
    `snapshot: ${base.entries.size} entries (excluding .git, node_modules)`,
  ]);
  const tmp = await mkdtemp(join(tmpdir(), 'collie-flow-'));
  const run: FlowRun = {
    o,
    sandbox,
    ctx,
    store,
    base,
    last: base,
    transcript,
    tmp,
    commands: 0,
    reproFiles: [],
    reproHashes: new Map(),
    outside: new Set(),
    tdd: needsTdd(ctx.fix),
  };
  try {
    const note = await runPipeline(run);
    transcript.note('result', note);
    return note;
  } catch (error) {
    if (!(error instanceof SkipFix))
      transcript.note('error', `${(error as Error).message}\n\nworktree restored to its state before the FIX`);
    await store.restore(base);
    if (!(error instanceof SkipFix)) throw error;
    const note = `skipped: ${error.reason}`;
    transcript.note('result', `${note}\n\nworktree restored byte-identical to its state before the FIX`);
    return note;
  } finally {
    transcripts.set(ctx.fix.id, transcript.render());
    await rm(tmp, { recursive: true, force: true });
    await transcript.write(logDir);
  }
}

/**
 * Stage 5.1 `Skill('collie:flow')` of seed 000: the full flow pipeline per FIX, TDD → implement →
 * review → simplify → regression → [final review], each agent step a fresh dispatch (roles and
 * tiers in {@link FLOW_STEPS}: standard = sonnet, final review deep = opus; Section 0).
 *
 * `apply(ctx)`: snapshots the worktree (`.git` and `node_modules` excluded) with a whole-tree
 * snapshot store of `@loop/rollback-snapshot` (a stat manifest plus content-addressed copies in
 * `snapshotDir`: after the first FIX a snapshot costs one `lstat` per file plus the changed files),
 * then
 * 1. TDD (kind correctness with a reproduction_test; G1 lets no other kind add a test file): the agent adds the test as
 *    a NEW key
 *    file matching `testFilePattern`; the repro command must fail (red), else `skipped:`;
 * 2. implement; 3. review (`verdict: approve | changes_requested`; a reply without a verdict line
 *    counts as changes_requested), at most `reviewRounds` rounds, implement again with the
 *    comments; 4. simplify; 5. regression (`testCommand`, plus the repro command when it differs,
 *    exit 0), one more implement round with the log tail on failure; 6. final review.
 * Implement and simplify must not edit the new reproduction test (else `skipped:`). Changes
 * outside the key files are recorded in the transcript, not blocked (G6 audits them). A step that
 * fails returns `skipped: <reason>` after restoring the worktree byte-identical (only the files that
 * differ are rewritten, each verified by hash); success returns
 * one line `flow: ...`. Never commits, never runs git.
 *
 * Each command runs in its own process group (core `runInGroupToLog`): the whole tree, a `setsid`
 * daemon included (cgroup or run token), is gone when the command ends or is killed.
 *
 * @throws {ConfigError} `CONFIG_INVALID` naming the field for invalid options or `sandbox: 'bwrap'`
 *   where bwrap does not work (and from `apply` when
 *   `logDir` or `snapshotDir` is inside the worktree).
 * @throws {LoopError} from `apply`, after restoring the worktree: the agent's errors as they are
 *   (`PROPOSER_FAILED`), `PROPOSER_FAILED` when `ctx.signal` aborts the FIX, `HARNESS_FAILED` when
 *   a command cannot be spawned, `RESTORE_FAILED` when the worktree cannot be restored.
 */
export function createFlowPipelineExecutor(options: FlowPipelineOptions): FlowPipelineExecutor {
  const o = parseOptions(flowPipelineOptionsSchema, options, 'collie flow-pipeline');
  const sandbox = planSandbox(o, 'collie flow-pipeline', { mode: 'auto', network: false });
  const transcripts = new Map<string, string>();
  const stores = new Map<string, TreeSnapshotStore>();
  return {
    name: `flow-pipeline(${o.agent.name})`,
    settings: o,
    transcriptOf: (fixId) => transcripts.get(fixId),
    apply: (ctx) => applyFix(o, sandbox, ctx, transcripts, stores),
  };
}

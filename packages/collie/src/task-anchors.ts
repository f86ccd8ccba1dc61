import { LoopError } from '@loop/core';
import type { StageName } from './controller/step-outcome.js';
import type { RUNNING_STAGES } from './run-state.js';
import type { Task, TaskStatus, TaskTracker } from './task-tracker.js';

/**
 * Seed 000 Stage 1 "Step 0 — TaskCreate stage anchoring": every iteration gets six task anchors
 * `[iter-N stage-K] <title>` in the host's task list; exactly one of them is `in_progress` (the
 * stage the orchestrator is executing), and after a long dispatch the orchestrator re-reads the
 * list to detect drift (`stage_anchor_drift`).
 *
 * Anchors are identified by their `[iter-N stage-K]` prefix, not by the whole subject, so a host
 * that trims or rewrites the title still matches. A task with status `deleted` does not count as
 * an anchor (the host's TaskUpdate `deleted` removes it from view).
 */

/** An anchor's stage number, 1..6. */
export type AnchorStage = 1 | 2 | 3 | 4 | 5 | 6;

/** One of the six per-iteration anchors: its stage number and title. */
export interface StageAnchor {
  readonly stage: AnchorStage;
  readonly title: string;
}

/**
 * The six anchors of seed 000 Stage 1 Step 0, in stage order. Titles are the seed's, with its
 * Chinese glosses in English and full-width parentheses as ASCII.
 */
export const STAGE_ANCHORS: readonly StageAnchor[] = Object.freeze([
  { stage: 1, title: 'Kickoff (git HEAD + baseline)' },
  { stage: 2, title: 'Run trigger (subprocess background + Monitor/tail)' },
  { stage: 3, title: 'Observe (ISSUE collection + auto-recovery ladder)' },
  { stage: 4, title: 'Triage + Deep Verify (4a/4b opus)' },
  { stage: 5, title: 'Fix Plan + flow + G6 audit + Rerun (5.0/5.1/5.2/5.3)' },
  { stage: 6, title: 'Rollback + Stop Check' },
] as const satisfies readonly StageAnchor[]);

const checkIter = (iter: number): void => {
  if (!Number.isInteger(iter) || iter < 1)
    throw new LoopError('CONFIG_INVALID', `[loop] [collie] iteration must be a positive integer, got ${iter}`, {
      details: { iter },
    });
};
const checkStage = (stage: number): void => {
  if (!Number.isInteger(stage) || stage < 1 || stage > 6)
    throw new LoopError('CONFIG_INVALID', `[loop] [collie] anchor stage must be 1..6, got ${stage}`, {
      details: { stage },
    });
};

/** The `[iter-N stage-K]` prefix that identifies an anchor. */
const anchorPrefix = (iter: number, stage: number): string => `[iter-${iter} stage-${stage}]`;
const ANCHOR_RE = /^\[iter-(\d+) stage-([1-6])\]/;

/**
 * The exact subject of anchor `stage` of iteration `iter`: `[iter-N stage-K] <title>`, for example
 * `[iter-3 stage-1] Kickoff (git HEAD + baseline)`.
 *
 * @throws {LoopError} `CONFIG_INVALID` when `iter` is not a positive integer or `stage` not 1..6.
 */
export function anchorSubject(iter: number, stage: AnchorStage): string {
  checkIter(iter);
  checkStage(stage);
  return `${anchorPrefix(iter, stage)} ${STAGE_ANCHORS[stage - 1]!.title}`;
}

/** The iteration and stage of an anchor subject, or undefined when `subject` is not an anchor. */
export function parseAnchorSubject(subject: string): { iter: number; stage: AnchorStage } | undefined {
  const m = ANCHOR_RE.exec(subject);
  if (!m) return undefined;
  const iter = Number(m[1]);
  return iter >= 1 ? { iter, stage: Number(m[2]) as AnchorStage } : undefined;
}

/**
 * Stage names {@link anchorStageOf} accepts: the state.json resume cursor (`RUNNING_STAGES`:
 * kickoff, trigger, observe, recover, triage, verify, plan, flow, audit, rerun), `stage6`, and the
 * controller's step-outcome names (`stage1`, `stage2`, `stage3`, `stage3.2`, `stage4a`, `stage4b`,
 * `stage5.0`..`stage5.3`).
 */
export type AnchorStageName = (typeof RUNNING_STAGES)[number] | StageName;

const STAGE_OF: Readonly<Record<AnchorStageName, AnchorStage>> = Object.freeze({
  kickoff: 1,
  trigger: 2,
  observe: 3,
  recover: 3,
  triage: 4,
  verify: 4,
  plan: 5,
  flow: 5,
  audit: 5,
  rerun: 5,
  stage1: 1,
  stage2: 2,
  stage3: 3,
  'stage3.2': 3,
  stage4a: 4,
  stage4b: 4,
  'stage5.0': 5,
  'stage5.1': 5,
  'stage5.2': 5,
  'stage5.3': 5,
  stage6: 6,
});

/**
 * The anchor (1..6) of a controller stage name: kickoff→1, trigger→2, observe|recover→3,
 * triage|verify→4, plan|flow|audit|rerun→5, stage6→6 (and the `stageN` outcome names likewise).
 * Note state.json's `stage` is the stage to run next, so after a resume it names the anchor to
 * switch to.
 *
 * @throws {LoopError} `CONFIG_INVALID` for any other name.
 */
export function anchorStageOf(stageName: AnchorStageName): AnchorStage {
  const stage = Object.hasOwn(STAGE_OF, stageName) ? STAGE_OF[stageName] : undefined;
  if (stage === undefined)
    throw new LoopError(
      'CONFIG_INVALID',
      `[loop] [collie] unknown stage name "${String(stageName)}"; expected one of ${Object.keys(STAGE_OF).join(', ')}`,
      { details: { stageName } },
    );
  return stage;
}

interface LiveAnchor {
  readonly task: Task;
  readonly iter: number;
  readonly stage: AnchorStage;
}

/** Every non-deleted anchor task, in list order. */
async function liveAnchors(tracker: TaskTracker): Promise<LiveAnchor[]> {
  const out: LiveAnchor[] = [];
  for (const task of await tracker.list()) {
    if (task.status === 'deleted') continue;
    const parsed = parseAnchorSubject(task.subject);
    if (parsed) out.push({ task, ...parsed });
  }
  return out;
}

const setStatus = async (tracker: TaskTracker, task: Task, status: TaskStatus): Promise<void> => {
  if (task.status !== status) await tracker.update(task.id, status);
};

/**
 * Makes sure iteration `iter` has exactly one live anchor per stage: creates the missing ones in
 * stage order, and marks extra copies (from a racing or replayed TaskCreate) `deleted`, keeping
 * the first-listed one. Returns the six anchors by stage.
 */
async function ensureAnchors(tracker: TaskTracker, iter: number): Promise<Map<AnchorStage, Task>> {
  const byStage = new Map<AnchorStage, Task>();
  for (const a of await liveAnchors(tracker)) {
    if (a.iter !== iter) continue;
    if (byStage.has(a.stage)) await tracker.update(a.task.id, 'deleted');
    else byStage.set(a.stage, a.task);
  }
  for (const { stage } of STAGE_ANCHORS) {
    if (!byStage.has(stage)) byStage.set(stage, await tracker.create(anchorSubject(iter, stage)));
  }
  return byStage;
}

/** Options of {@link startIterationAnchors}. */
export interface StartIterationOptions {
  /**
   * True when Stage 6 rolled the previous iteration back: its anchors are then marked `deleted`
   * (all of them, completed ones included); false: its open anchors are marked `completed`.
   */
  readonly previousRolledBack: boolean;
}

/**
 * Seed 000 Stage 1 Step 0, items 1-3, for iteration `iter` (N, read from state.json):
 *
 * 1. anchors of iteration N-1: when `previousRolledBack`, every live one → `deleted`; otherwise
 *    every `pending` / `in_progress` one → `completed`. Open anchors of older iterations (left by a
 *    crash) → `completed`, so they cannot be mistaken for drift.
 * 2. creates the anchors of iteration N that do not exist yet (matched by `[iter-N stage-K]`
 *    prefix; extra copies are marked `deleted`).
 * 3. sets `[iter-N stage-1]` `in_progress`.
 *
 * Idempotent and crash-safe: calling it again, or after a crash half-way (with a durable tracker),
 * leaves exactly six live anchors for iteration N. Step 3 always sets stage-1 `in_progress`, as the
 * seed re-enters Stage 1 on resume; a controller resuming at a later stage then calls
 * {@link switchAnchor} with that stage. Never touches tasks that are not anchors.
 *
 * @returns the six anchors of iteration N, by stage 1..6 (statuses as after the call).
 * @throws {LoopError} `CONFIG_INVALID` when `iter` is not a positive integer; whatever the tracker
 *   throws (the built-in trackers: `STATE_CORRUPT`, `STATE_WRITE_FAILED`).
 */
export async function startIterationAnchors(
  tracker: TaskTracker,
  iter: number,
  options: StartIterationOptions,
): Promise<Task[]> {
  checkIter(iter);
  for (const a of await liveAnchors(tracker)) {
    if (a.iter === iter - 1 && options.previousRolledBack) await setStatus(tracker, a.task, 'deleted');
    else if (a.iter < iter && (a.task.status === 'pending' || a.task.status === 'in_progress'))
      await setStatus(tracker, a.task, 'completed');
  }
  const anchors = await ensureAnchors(tracker, iter);
  await setStatus(tracker, anchors.get(1)!, 'in_progress');
  return readAnchors(tracker, iter);
}

/**
 * A stage switch (seed 000 Step 0 item 4, last sentence): before entering stage `toStage` of
 * iteration `iter`, every `in_progress` anchor of the iteration before `toStage` → `completed`,
 * every `in_progress` one after it → `pending` (it did not finish; only happens on a resume or a
 * replayed step), then `[iter-N stage-toStage]` → `in_progress`. `pending` anchors of skipped
 * stages are left alone (the next {@link startIterationAnchors} completes them). Missing anchors of
 * iteration `iter` are created first, so a resume that skipped Step 0 still ends consistent.
 * Idempotent; switching to the current stage changes nothing.
 *
 * @returns the six anchors of iteration N, by stage 1..6 (statuses as after the call).
 * @throws {LoopError} `CONFIG_INVALID` for a bad `iter` or `toStage`; whatever the tracker throws.
 */
export async function switchAnchor(tracker: TaskTracker, iter: number, toStage: AnchorStage): Promise<Task[]> {
  checkIter(iter);
  checkStage(toStage);
  const anchors = await ensureAnchors(tracker, iter);
  for (const [stage, task] of anchors) {
    if (stage === toStage || task.status !== 'in_progress') continue;
    await tracker.update(task.id, stage < toStage ? 'completed' : 'pending');
  }
  await setStatus(tracker, anchors.get(toStage)!, 'in_progress');
  return readAnchors(tracker, iter);
}

/** The live anchors of iteration `iter`, in stage order (at most one per stage). */
export async function readAnchors(tracker: TaskTracker, iter: number): Promise<Task[]> {
  const byStage = new Map<AnchorStage, Task>();
  for (const a of await liveAnchors(tracker))
    if (a.iter === iter && !byStage.has(a.stage)) byStage.set(a.stage, a.task);
  return [...byStage.entries()].sort(([a], [b]) => a - b).map(([, t]) => t);
}

/** Result of {@link checkAnchor}: ok, or the expected subject and the in_progress anchor subjects. */
export type AnchorCheck =
  { readonly ok: true } | { readonly ok: false; readonly expected: string; readonly actual: string[] };

/**
 * The self-anchor check (seed 000 Step 0 item 4): after a long dispatch ({@link isLongDispatch})
 * the orchestrator lists the tasks and confirms the `in_progress` anchor is the stage it is
 * executing. Ok iff the live `in_progress` anchors (of any iteration) are exactly
 * `[iter-N stage-K]`; non-anchor tasks are ignored. Not ok → the caller STOPs and escalates
 * `stage_anchor_drift`. Read-only.
 *
 * @returns `{ ok: false, expected, actual }` with `expected` = {@link anchorSubject}(iter, stage)
 *   and `actual` = the subjects of every `in_progress` anchor, in list order (empty when none).
 * @throws {LoopError} `CONFIG_INVALID` for a bad `iter` or `stage`; whatever the tracker throws.
 */
export async function checkAnchor(tracker: TaskTracker, iter: number, stage: AnchorStage): Promise<AnchorCheck> {
  const expected = anchorSubject(iter, stage);
  const running = (await liveAnchors(tracker)).filter((a) => a.task.status === 'in_progress');
  if (running.length === 1 && running[0]!.iter === iter && running[0]!.stage === stage) return { ok: true };
  return { ok: false, expected, actual: running.map((a) => a.task.subject) };
}

/** A dispatch whose reply is longer than this many characters is long (seed 000: "> 200 字符"). */
export const LONG_DISPATCH_CHARS = 200;
/** A dispatch that took longer than this many milliseconds is long (seed 000: "> 30s"). */
export const LONG_DISPATCH_MS = 30_000;

/**
 * True when a dispatch is long and must be followed by {@link checkAnchor} (seed 000 Step 0 item
 * 4): `replyChars > 200 || elapsedMs > 30000` (strictly greater; exactly 200 chars / 30000 ms is
 * not long).
 *
 * @param replyChars - the sub-agent reply's length in characters (`string.length`).
 * @param elapsedMs - how long the dispatch took, in milliseconds.
 */
export function isLongDispatch(replyChars: number, elapsedMs: number): boolean {
  return replyChars > LONG_DISPATCH_CHARS || elapsedMs > LONG_DISPATCH_MS;
}

import { readJson, writeJsonAtomic, LoopError } from '@loop/core';
import type { MaybePromise } from '@loop/core';
import { z } from 'zod';
import type { RUNNING_STAGES } from './run-state.js';

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

/** A task's status, as the host's TaskUpdate accepts it. `completed` and `deleted` are final. */
export type TaskStatus = 'pending' | 'in_progress' | 'completed' | 'deleted';

/** The statuses, in a fixed order. */
export const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'deleted'] as const satisfies readonly TaskStatus[];

/** One task of a {@link TaskTracker}. */
export interface Task {
  /** The tracker-assigned id (`T1`, `T2`, ... for the file and memory trackers). */
  readonly id: string;
  /** The task's one-line subject, for anchors exactly {@link anchorSubject}. */
  readonly subject: string;
  /** The task's status; a new task is `pending`. */
  readonly status: TaskStatus;
}

/**
 * The seed's TaskCreate / TaskUpdate / TaskList host tools as an injected interface.
 *
 * Implementations must be durable across the orchestrator's restarts when the run is (a crash
 * between two `create` calls must leave the first task visible to the next `list`), and must keep
 * a `deleted` task out of the way of anchor matching (either drop it from `list()` or report it
 * with status `deleted`; both work here).
 */
export interface TaskTracker {
  /** Used in errors and logs. */
  readonly name: string;
  /** TaskCreate: adds a `pending` task with `subject` and returns it. */
  readonly create: (subject: string) => MaybePromise<Task>;
  /**
   * TaskUpdate: sets the status of task `id`.
   *
   * @throws {LoopError} `STATE_CORRUPT` when the tracker holds no task `id` (for the built-in
   *   trackers).
   */
  readonly update: (id: string, status: TaskStatus) => MaybePromise<void>;
  /** TaskList: every task, in creation order. */
  readonly list: () => MaybePromise<readonly Task[]>;
}

// ---------------------------------------------------------------------------------------------
// Trackers

const taskSchema = z.object({
  id: z.string().min(1),
  subject: z.string(),
  status: z.enum(TASK_STATUSES),
});

/** zod schema of the file {@link createFileTaskTracker} writes. */
export const taskFileSchema = z
  .object({
    version: z.literal(1),
    /** The number of the next id (`T<nextId>`); never reused. */
    nextId: z.number().int().positive(),
    tasks: z.array(taskSchema),
  })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.tasks.forEach((task, i) => {
      if (seen.has(task.id)) ctx.addIssue({ code: 'custom', path: ['tasks', i, 'id'], message: `duplicate task id ${task.id}` });
      seen.add(task.id);
    });
  });

/** The contents of a task file. */
export type TaskFile = z.output<typeof taskFileSchema>;

const unknownTask = (tracker: string, id: string, where: string): LoopError =>
  new LoopError('STATE_CORRUPT', `[loop] [collie] task tracker ${tracker} has no task ${id}${where}; the task list changed under the orchestrator, re-run TaskList`, { details: { tracker, id } });

/**
 * An in-memory {@link TaskTracker} for tests and demos. Ids are `T1`, `T2`, ... in creation order;
 * `list()` returns copies, in creation order, including `deleted` tasks.
 *
 * @throws {LoopError} `STATE_CORRUPT` from `update()` for an unknown id.
 */
export function createMemoryTaskTracker(): TaskTracker {
  const tasks: Task[] = [];
  return {
    name: 'memory',
    create: (subject) => {
      const task: Task = { id: `T${tasks.length + 1}`, subject, status: 'pending' };
      tasks.push(task);
      return { ...task };
    },
    update: (id, status) => {
      const i = tasks.findIndex((t) => t.id === id);
      if (i < 0) throw unknownTask('memory', id, '');
      tasks[i] = { ...tasks[i]!, status };
    },
    list: () => tasks.map((t) => ({ ...t })),
  };
}

/**
 * A durable {@link TaskTracker} backed by one JSON file ({@link taskFileSchema}: `{ version: 1,
 * nextId, tasks: [{ id, subject, status }] }`). Every `create` / `update` re-reads the file and
 * rewrites it whole with core `writeJsonAtomic` before resolving, so a crash never loses a
 * resolved call and a new tracker on the same path sees the same tasks. Calls on one instance are
 * serialised; two instances on one path in the same moment are not supported (the orchestrator is
 * single-writer). A missing file is an empty list; the file is created by the first write.
 * Ids are `T1`, `T2`, ... and never reused.
 *
 * @param path - the task file, for example `~/.collie/autoiter/{project}/{runId}/tasks.json`.
 * @throws {LoopError} `STATE_CORRUPT` naming `path` (and the field) from any call when the file is
 *   not valid JSON or not of the expected shape; `STATE_CORRUPT` naming `path` and the id from
 *   `update()` for an unknown id; `STATE_WRITE_FAILED` naming `path` when it cannot be written.
 */
export function createFileTaskTracker(path: string): TaskTracker {
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };
  const load = async (): Promise<TaskFile> => {
    const raw = await readJson(path);
    if (raw === undefined) return { version: 1, nextId: 1, tasks: [] };
    const r = taskFileSchema.safeParse(raw);
    if (!r.success) {
      const fields = r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      throw new LoopError('STATE_CORRUPT', `[loop] [collie] task file ${path} is malformed: ${fields}; fix or delete it`, { cause: r.error, details: { path, fields: r.error.issues.map((i) => i.path.join('.')) } });
    }
    return r.data;
  };
  return {
    name: `file:${path}`,
    create: (subject) =>
      serial(async () => {
        const file = await load();
        const task: Task = { id: `T${file.nextId}`, subject, status: 'pending' };
        await writeJsonAtomic(path, { version: 1, nextId: file.nextId + 1, tasks: [...file.tasks, task] } satisfies TaskFile);
        return { ...task };
      }),
    update: (id, status) =>
      serial(async () => {
        const file = await load();
        if (!file.tasks.some((t) => t.id === id)) throw unknownTask(`file:${path}`, id, ` in ${path}`);
        await writeJsonAtomic(path, { ...file, tasks: file.tasks.map((t) => (t.id === id ? { ...t, status } : t)) } satisfies TaskFile);
      }),
    list: () => serial(async () => (await load()).tasks.map((t) => ({ ...t }))),
  };
}

// ---------------------------------------------------------------------------------------------
// Anchors

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
  if (!Number.isInteger(iter) || iter < 1) throw new LoopError('CONFIG_INVALID', `[loop] [collie] iteration must be a positive integer, got ${iter}`, { details: { iter } });
};
const checkStage = (stage: number): void => {
  if (!Number.isInteger(stage) || stage < 1 || stage > 6) throw new LoopError('CONFIG_INVALID', `[loop] [collie] anchor stage must be 1..6, got ${stage}`, { details: { stage } });
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
export type AnchorStageName = (typeof RUNNING_STAGES)[number] | 'stage1' | 'stage2' | 'stage3' | 'stage3.2' | 'stage4a' | 'stage4b' | 'stage5.0' | 'stage5.1' | 'stage5.2' | 'stage5.3' | 'stage6';

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
  if (stage === undefined) throw new LoopError('CONFIG_INVALID', `[loop] [collie] unknown stage name "${String(stageName)}"; expected one of ${Object.keys(STAGE_OF).join(', ')}`, { details: { stageName } });
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
export async function startIterationAnchors(tracker: TaskTracker, iter: number, options: StartIterationOptions): Promise<Task[]> {
  checkIter(iter);
  for (const a of await liveAnchors(tracker)) {
    if (a.iter === iter - 1 && options.previousRolledBack) await setStatus(tracker, a.task, 'deleted');
    else if (a.iter < iter && (a.task.status === 'pending' || a.task.status === 'in_progress')) await setStatus(tracker, a.task, 'completed');
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
  for (const a of await liveAnchors(tracker)) if (a.iter === iter && !byStage.has(a.stage)) byStage.set(a.stage, a.task);
  return [...byStage.entries()].sort(([a], [b]) => a - b).map(([, t]) => t);
}

/** Result of {@link checkAnchor}: ok, or the expected subject and the in_progress anchor subjects. */
export type AnchorCheck = { readonly ok: true } | { readonly ok: false; readonly expected: string; readonly actual: string[] };

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

import { LoopError } from '@loop/core';
import { readJson, writeJsonAtomic } from '@loop/core/files';
import type { MaybePromise } from '@loop/core';
import { z } from 'zod';

// The seed 000 host's TaskCreate / TaskUpdate / TaskList as an injected interface, with a memory and
// a file implementation; the Stage 1 anchors built on it are in task-anchors.ts.

/** A task's status, as the host's TaskUpdate accepts it. `completed` and `deleted` are final. */
export type TaskStatus = 'pending' | 'in_progress' | 'completed' | 'deleted';

/** The statuses, in a fixed order. */
export const TASK_STATUSES = [
  'pending',
  'in_progress',
  'completed',
  'deleted',
] as const satisfies readonly TaskStatus[];

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
      if (seen.has(task.id))
        ctx.addIssue({ code: 'custom', path: ['tasks', i, 'id'], message: `duplicate task id ${task.id}` });
      seen.add(task.id);
    });
  });

/** The contents of a task file. */
export type TaskFile = z.output<typeof taskFileSchema>;

const unknownTask = (tracker: string, id: string, where: string): LoopError =>
  new LoopError(
    'STATE_CORRUPT',
    `[loop] [collie] task tracker ${tracker} has no task ${id}${where}; the ` +
      `task list changed under the orchestrator, re-run TaskList`,
    { details: { tracker, id } },
  );

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
      throw new LoopError(
        'STATE_CORRUPT',
        `[loop] [collie] task file ${path} is malformed: ${fields}; fix or delete it`,
        { cause: r.error, details: { path, fields: r.error.issues.map((i) => i.path.join('.')) } },
      );
    }
    return r.data;
  };
  return {
    name: `file:${path}`,
    create: (subject) =>
      serial(async () => {
        const file = await load();
        const task: Task = { id: `T${file.nextId}`, subject, status: 'pending' };
        await writeJsonAtomic(path, {
          version: 1,
          nextId: file.nextId + 1,
          tasks: [...file.tasks, task],
        } satisfies TaskFile);
        return { ...task };
      }),
    update: (id, status) =>
      serial(async () => {
        const file = await load();
        if (!file.tasks.some((t) => t.id === id)) throw unknownTask(`file:${path}`, id, ` in ${path}`);
        await writeJsonAtomic(path, {
          ...file,
          tasks: file.tasks.map((t) => (t.id === id ? { ...t, status } : t)),
        } satisfies TaskFile);
      }),
    list: () => serial(async () => (await load()).tasks.map((t) => ({ ...t }))),
  };
}

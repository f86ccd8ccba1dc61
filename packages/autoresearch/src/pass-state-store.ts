import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isLoopError, LoopError, type EngineState, type StateStore } from '@loop/core';
import { readJson, writeJsonAtomic } from '@loop/core/files';

/** Writes a JSON file (temp + rename + re-read by default). */
export type StateWriter = (path: string, data: unknown) => Promise<void>;

async function readObject(path: string): Promise<Record<string, unknown>> {
  try {
    const read = await readJson(path);
    return read && typeof read === 'object' ? (read as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const objectAt = (o: Record<string, unknown>, key: string): Record<string, unknown> =>
  (o[key] && typeof o[key] === 'object' ? o[key] : {}) as Record<string, unknown>;

/**
 * Writes `.aid/pipeline/state.json` as a pass's FINAL action (seed 002 on-stop step 3): merges
 * `autoresearch.<mode>` = `entry` and appends `history` to `step_history` in the existing file,
 * writes it via `write` (temp + rename by default), re-reads it and checks its mtime is not older
 * than the newest of `files` (relative to `workspace`).
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` (the seed's `state-write-failed`) with `details.result`.
 */
export async function writePipelineStateLast(o: {
  /** state.json path. */
  path: string;
  /** The pass. */
  mode: string;
  /** Merged as `autoresearch.<mode>`. */
  entry: Record<string, unknown>;
  /** Appended to `step_history`. */
  history: Record<string, unknown>;
  /** Mutable files (relative) whose mtime state.json must not be older than. */
  files: readonly string[];
  /** Workspace the files are relative to. */
  workspace: string;
  /** The writer. @default writeJsonAtomic */
  write?: StateWriter;
  /** Carried in the error's details. */
  result: unknown;
  /** Named in the error message. */
  resultsPath: string;
}): Promise<void> {
  const { path } = o;
  const write = o.write ?? writeJsonAtomic;
  const fail = (why: string, cause?: unknown) =>
    new LoopError(
      'STATE_WRITE_FAILED',
      `[loop] [autoresearch] state-write-failed: ${path}: ${why}; the pass's ` +
        `results are in ${o.resultsPath}: write state.json again before ` +
        `re-running the pipeline`,
      { cause, details: { path, result: o.result } },
    );
  const existing = await readObject(path);
  const ar = objectAt(existing, 'autoresearch');
  const history = Array.isArray(existing.step_history) ? existing.step_history : [];
  const data = { ...existing, autoresearch: { ...ar, [o.mode]: o.entry }, step_history: [...history, o.history] };
  try {
    await write(path, data);
    const reread = await readJson(path);
    if (!reread || typeof reread !== 'object') throw new Error('re-read did not parse');
  } catch (error) {
    throw isLoopError(error, 'STATE_WRITE_FAILED')
      ? fail(error.message, error)
      : fail((error as Error)?.message ?? String(error), error);
  }
  const stateMtime = (await stat(path)).mtimeMs;
  let newest = 0;
  for (const f of o.files)
    newest = Math.max(
      newest,
      await stat(join(o.workspace, f)).then(
        (st) => st.mtimeMs,
        () => 0,
      ),
    );
  if (stateMtime < newest)
    throw fail(
      `its mtime ${new Date(stateMtime).toISOString()} is older than the ` +
        `newest source file ${new Date(newest).toISOString()}`,
    );
}

/**
 * Setup step 7: records `autoresearch.<mode>.{task_id, rubric_sha256}` in state.json at pass start
 * (best effort: the final state.json write is the authoritative, loudly checked one). On resume of
 * the same task, a different recorded hash means the rubric changed between runs: every score in
 * results.tsv is incomparable with new ones, so the pass refuses to start.
 *
 * @throws {LoopError} `HARNESS_TAMPERED` when a resumed pass's recorded rubric_sha256 differs.
 */
export async function recordRubricAtStart(o: {
  statePath: string;
  mode: string;
  taskId: string;
  rubricSha256: string;
  resumed: boolean;
  write: StateWriter;
  resultsPath: string;
}): Promise<void> {
  const existing = await readObject(o.statePath);
  const ar = objectAt(existing, 'autoresearch');
  const prev = objectAt(ar, o.mode);
  if (
    o.resumed &&
    prev.task_id === o.taskId &&
    typeof prev.rubric_sha256 === 'string' &&
    prev.rubric_sha256 !== o.rubricSha256
  ) {
    throw new LoopError(
      'HARNESS_TAMPERED',
      `[loop] [autoresearch] the rubric changed since this pass started ` +
        `(recorded sha256 ${prev.rubric_sha256.slice(0, 12)}, ` +
        `now ${o.rubricSha256.slice(0, 12)}): the scores in ${o.resultsPath} are ` +
        `incomparable with new ones; restore the rubric or move results.tsv away ` +
        `to start a new pass`,
      { details: { expected: prev.rubric_sha256, actual: o.rubricSha256 } },
    );
  }
  const entry = {
    ...(o.resumed && prev.task_id === o.taskId ? prev : {}),
    task_id: o.taskId,
    rubric_sha256: o.rubricSha256,
  };
  try {
    await o.write(o.statePath, { ...existing, autoresearch: { ...ar, [o.mode]: entry } });
  } catch {
    // best effort: the final write surfaces state-write-failed loudly
  }
}

/** What the pass writes when the engine's stop sequence writes its final state. */
export interface FinalState {
  /** `autoresearch.<mode>` (the engine's state is added as `engine`). */
  readonly entry: Record<string, unknown>;
  /** The `step_history` entry. */
  readonly history: Record<string, unknown>;
  /** Mutable files state.json must not be older than. */
  readonly files: readonly string[];
  /** Carried in a STATE_WRITE_FAILED error's details. */
  readonly result: unknown;
}

/** Options of {@link createPassStateStore}. */
export interface PassStateStoreOptions {
  readonly path: string;
  readonly workspace: string;
  readonly mode: string;
  readonly taskId: string;
  /** True when results.tsv had data rows: only then is a recorded engine state read back. */
  readonly resumed: boolean;
  readonly write: StateWriter;
  readonly resultsPath: string;
}

/** The pass's state store: a core {@link StateStore} that is told what its final write records. */
export interface PassStateStore extends StateStore {
  /**
   * Sets what the stop sequence's final write records (call it from `LoopOptions.onStop`, which
   * runs after the best version was restored and before that write: seed 002 on-stop steps 1-3).
   * Without it the final write records the engine's state only.
   */
  readonly finish: (final: FinalState) => void;
}

/**
 * The pass's {@link StateStore} over seed 002's `.aid/pipeline/state.json`: the engine's state
 * (full-precision best, its id, counters, samples) lives under `autoresearch.<mode>.engine`, next
 * to the pass's own keys and the pipeline's. After each iteration it is merged in (best effort: the
 * pass keeps going when a mid-pass write fails; results.tsv and its twin hold the record); the stop
 * sequence's write is the pass's FINAL write of what `finish` was given, loudly checked
 * ({@link writePipelineStateLast}).
 * `read` returns the recorded engine state only when results.tsv is being resumed for the same task.
 */
export function createPassStateStore(o: PassStateStoreOptions): PassStateStore {
  let final: FinalState | undefined;
  return {
    finish: (f) => void (final = f),
    name: 'autoresearch-state-json',
    path: o.path,
    read: async () => {
      if (!o.resumed) return undefined;
      const entry = objectAt(objectAt(await readObject(o.path), 'autoresearch'), o.mode);
      const engine = entry.task_id === o.taskId ? entry.engine : undefined;
      return engine && typeof engine === 'object' ? (engine as EngineState) : undefined;
    },
    write: async (state) => {
      if (state.stopReason === undefined || !final) {
        const existing = await readObject(o.path);
        const ar = objectAt(existing, 'autoresearch');
        const entry = { ...objectAt(ar, o.mode), task_id: o.taskId, engine: state };
        await o.write(o.path, { ...existing, autoresearch: { ...ar, [o.mode]: entry } }).catch(() => {});
        return;
      }
      await writePipelineStateLast({
        path: o.path,
        mode: o.mode,
        entry: { ...final.entry, engine: state },
        history: final.history,
        files: final.files,
        workspace: o.workspace,
        write: o.write,
        result: final.result,
        resultsPath: o.resultsPath,
      });
    },
  };
}

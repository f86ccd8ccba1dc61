import { join } from 'node:path';
import { LoopError, parseOptions, systemClock, type Checkpoint, type CandidateInfo } from '@loop/core';
import { plannedFiles } from './internal/planned-files.js';
import { resolveSurface } from './internal/resolve-surface.js';
import { nodeSnapshotFs, type SnapshotFs } from './snapshot-fs.js';
import { createStatRecord } from './internal/stat-record.js';
import {
  BASELINE_DIR_PATTERN,
  KEPT_DIR_PATTERN,
  PRE_EDIT_FILE_PATTERN,
  baselineDirName,
  keptDirName,
  preEditFileName,
  slugify,
} from './snapshot-names.js';
import { snapshotRollbackOptionsSchema, type SnapshotRollbackOptions } from './snapshot-rollback-options.js';
import {
  createSnapshotStore,
  PARTIAL_SUFFIX,
  sha256,
  STAGED_SUFFIX,
  type KeptEntry,
} from './snapshot-rollback-store.js';
import type {
  SnapshotPlan,
  PreEditCopy,
  RestoredFile,
  SnapshotCheckpoint,
  SnapshotRollback,
  SnapshotStartReport,
} from './snapshot-rollback-types.js';

const where = '[loop] [rollback-snapshot]';
const keptNumber = (name: string) => Number(KEPT_DIR_PATTERN.exec(name)?.[1] ?? Number.NaN);

/**
 * Creates the snapshot-copy rollback of seed 002: a baseline directory, per-iteration pre-edit
 * copies of only the touched files, verified `cp -p` restores, and a best-kept restore on stop.
 * Every directory that names a state (the baseline, each kept state) is filled under a temporary
 * name and renamed into place, so a kill -9 never leaves a partial one under a real name.
 * Git is never written: the surface comes from a read-only status, rollback from copies.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options (relative workspace, a path leaving it).
 *
 * @example
 * const rollback = createSnapshotRollback({ workspace, runDir: `${workspace}/.aid/pipeline/autoresearch/T-1` });
 * await rollback.start();
 * const cp = await rollback.checkpoint(1, { files: ['src/a.ts'], slug: 'inline-helper' });
 * // ... edit src/a.ts, score it; not better:
 * await rollback.revert(cp, { iteration: 1 });
 */
export function createSnapshotRollback(options: SnapshotRollbackOptions): SnapshotRollback {
  const o = parseOptions(snapshotRollbackOptionsSchema, options, 'rollback-snapshot');
  const fs: SnapshotFs = o.fs ?? nodeSnapshotFs;
  const clock = o.clock ?? systemClock;
  const fsClock = o.fsClock ?? systemClock;
  const snapshotsDir = join(o.runDir, 'snapshots');
  const store = createSnapshotStore({
    fs,
    workspace: o.workspace,
    snapshotsDir,
    mtimeToleranceMs: o.mtimeToleranceMs,
    concurrency: o.concurrency,
  });
  const { abs, each } = store;
  let files: string[] = [];
  let surface = new Set<string>();
  let baselineId = '';
  let keptId = '';
  let kept = new Map<string, KeptEntry>();
  let restored: RestoredFile[] = [];
  /**
   * The open iterations (checkpointed, neither kept nor reverted yet: one, or K in parallel mode)
   * with their plan's files. An entry leaves on keep or revert: the map never grows with the run.
   */
  const open = new Map<number, { cp: SnapshotCheckpoint; planned: readonly string[] }>();
  /**
   * The stat of every mutable file at the kept state (like git's index): a file whose stat still
   * matches was not touched and is neither read nor copied (internal/stat-record.ts).
   */
  const { stats, statOf, recordStats, touchedFiles } = createStatRecord(fs, abs, each, fsClock);
  /** Per iteration: the staged candidate's kept id and the entries it will add. */
  const staged = new Map<number, { id: string; entries: Map<string, KeptEntry>; touched: readonly string[] }>();
  /** Pre-edit copy names by iteration, oldest first, for retention (`retainIterations`). */
  const preEdit = new Map<number, string[]>();
  const dir = (name: string) => join(snapshotsDir, name);

  /**
   * Restores `targets` and records their stats as the kept state's; after a failure none of them has a record (each
   * counts as touched).
   */
  const restoreRecording = async (targets: ReadonlyMap<string, KeptEntry>, what: string): Promise<RestoredFile[]> => {
    try {
      const done = await store.restoreAll(targets, what);
      await recordStats(targets.keys());
      return done;
    } catch (error) {
      for (const f of targets.keys()) stats.delete(f);
      throw error;
    }
  };

  const start = async (): Promise<SnapshotStartReport> => {
    await fs.mkdir(snapshotsDir, { recursive: true });
    const names = await fs.readdir(snapshotsDir);
    // A baseline copy killed midway: nothing was edited yet, so drop it and copy the baseline again.
    for (const n of names.filter(
      (x) => x.endsWith(PARTIAL_SUFFIX) && BASELINE_DIR_PATTERN.test(x.slice(0, -PARTIAL_SUFFIX.length)),
    ))
      await store.rm(dir(n));
    for (const n of names) {
      const m = PRE_EDIT_FILE_PATTERN.exec(n);
      if (m) preEdit.set(Number(m[1]), [...(preEdit.get(Number(m[1])) ?? []), n]);
    }
    const existing = names.filter((n) => BASELINE_DIR_PATTERN.test(n)).sort();
    if (existing.length > 0) {
      baselineId = existing[0]!;
      files = await store.listFiles(dir(baselineId));
      surface = new Set(files);
      const keptDirs = names
        .filter((n) => KEPT_DIR_PATTERN.test(n))
        .sort((a, b) => keptNumber(a) - keptNumber(b) || a.localeCompare(b));
      keptId = keptDirs.at(-1) ?? baselineId;
      kept = await store.keptStateFromDisk(keptId, baselineId, files);
      stats.clear(); // unknown until recover/restoreBest puts the files back: every file counts as touched
      return { files, baselineId, resumed: true, keptId };
    }
    files = await resolveSurface(o, fs, abs, each);
    surface = new Set(files);
    const id = baselineDirName(clock.now());
    const partial = `${id}${PARTIAL_SUFFIX}`;
    const entries = new Map<string, KeptEntry>();
    await each(files, async (f) => {
      await store.copyPreserving(abs(f), join(dir(partial), f));
      entries.set(f, { path: join(dir(id), f), sha256: sha256(await fs.readFile(join(dir(partial), f))) });
    });
    await store.rename(dir(partial), dir(id));
    baselineId = keptId = id;
    kept = entries;
    await recordStats(files);
    return { files, baselineId, resumed: false, keptId };
  };

  const requireStarted = (member: string) => {
    if (!baselineId)
      throw new LoopError(
        'CONFIG_INVALID',
        `${where} ${member}() called before start(); call start() once per pass first`,
      );
  };

  const checkpoint = async (iteration: number, plan: SnapshotPlan = {}): Promise<SnapshotCheckpoint> => {
    requireStarted('checkpoint');
    if (iteration === 0) return { iteration, id: keptId, copies: [], slug: 'baseline' };
    const slug = slugify(plan.slug ?? 'edit');
    const planned = plannedFiles(where, plan.files, surface, files);
    if (planned === undefined) {
      // No plan: copy nothing (the workspace is at the kept state, whose copies exist); the files
      // the edit touches are found by their stat at keep or revert.
      const cp: SnapshotCheckpoint = { iteration, id: keptId, copies: [], slug };
      open.set(iteration, { cp, planned: [] });
      return cp;
    }
    const copied = await each(planned, async (file): Promise<PreEditCopy | undefined> => {
      // absent in the kept state (a kept deletion): nothing to copy
      if ((await statOf(file)) === undefined) return undefined;
      const snapshot = await store.freeName(preEditFileName(iteration, slug, file, clock.now()));
      await store.copyPreserving(abs(file), dir(snapshot));
      return { file, snapshot, sha256: sha256(await fs.readFile(dir(snapshot))) };
    });
    const copies = copied.filter((c) => c !== undefined);
    const cp: SnapshotCheckpoint = { iteration, id: keptId, copies, slug };
    open.set(iteration, { cp, planned });
    preEdit.set(iteration, [...(preEdit.get(iteration) ?? []), ...copies.map((c) => c.snapshot)]);
    return cp;
  };

  /** The mutable files iteration `n`'s edit may have touched (its plan's files, and by stat the others). */
  const touched = async (n: number): Promise<string[]> => {
    const plan = open.get(n)?.planned ?? [];
    if (!o.detectUnplanned && plan.length > 0) return [...plan];
    return touchedFiles(
      files,
      new Set(plan),
      (f) => store.hashOrNull(abs(f)),
      (f) => kept.get(f)?.sha256,
    );
  };

  /** Removes the pre-edit copies of iterations older than the last `retainIterations`. */
  const prune = async (current: number) => {
    for (const [n, names] of preEdit) {
      if (n > current - o.retainIterations) continue;
      await each(names, (name) => store.rm(dir(name)));
      preEdit.delete(n);
    }
  };

  const dropStaged = async (iteration: number) => {
    const s = staged.get(iteration);
    if (s) await store.rm(dir(`${s.id}${STAGED_SUFFIX}`));
    staged.delete(iteration);
  };

  /** Copies the touched files that differ from the kept state into `<id>.staged/`; returns the future kept id. */
  const stage = async (iteration: number): Promise<string> => {
    await dropStaged(iteration);
    const slug = open.get(iteration)?.cp.slug ?? 'edit';
    const id = await store.freeName(keptDirName(iteration, slug, clock.now()));
    const tmp = dir(`${id}${STAGED_SUFFIX}`);
    await fs.mkdir(tmp, { recursive: true });
    const changed = await touched(iteration);
    const entries = await store.stageInto(tmp, dir(id), changed, (f) => kept.get(f)?.sha256 ?? null);
    staged.set(iteration, { id, entries, touched: changed });
    return id;
  };

  const commit = async (cp: Checkpoint, _info: CandidateInfo): Promise<string> => {
    requireStarted('commit');
    return stage(cp.iteration);
  };

  const keep = async (cp: Checkpoint, candidateId: string | undefined): Promise<string> => {
    requireStarted('keep');
    const s = staged.get(cp.iteration);
    const id = s && (candidateId === undefined || candidateId === s.id) ? s.id : await stage(cp.iteration);
    const { entries, touched: written } = staged.get(cp.iteration)!;
    await store.rename(dir(`${id}${STAGED_SUFFIX}`), dir(id));
    for (const [file, entry] of entries) kept.set(file, entry);
    keptId = id;
    await recordStats(written);
    staged.delete(cp.iteration);
    open.delete(cp.iteration);
    await prune(cp.iteration);
    return id;
  };

  const revert = async (cp: Checkpoint): Promise<void> => {
    requireStarted('revert');
    const pre = open.get(cp.iteration)?.cp;
    const targets = new Map<string, KeptEntry>();
    for (const file of await touched(cp.iteration)) {
      const entry = kept.get(file);
      if (entry) targets.set(file, entry);
    }
    for (const c of pre?.copies ?? []) targets.set(c.file, { path: dir(c.snapshot), sha256: c.sha256 });
    restored = [];
    restored = await restoreRecording(targets, `revert of iteration ${cp.iteration}`);
    await dropStaged(cp.iteration);
    open.delete(cp.iteration);
    await prune(cp.iteration);
  };

  const restoreTo = async (id: string, what: string) => {
    requireStarted(what);
    const targets = await store.keptStateFromDisk(id, baselineId, files);
    restored = [];
    restored = await restoreRecording(targets, `${what} to ${id}`);
    kept = targets;
    keptId = id;
  };

  /** Resume: roll a staged kept id forward, set unrecorded kept directories aside, drop staging, restore. */
  const recover = async (id: string) => {
    requireStarted('recover');
    const names = await fs.readdir(snapshotsDir);
    if (KEPT_DIR_PATTERN.test(id) && !names.includes(id) && names.includes(`${id}${STAGED_SUFFIX}`)) {
      await store.rename(dir(`${id}${STAGED_SUFFIX}`), dir(id));
    }
    const upTo = id === baselineId ? 0 : keptNumber(id);
    for (const n of names) {
      if (n.endsWith(STAGED_SUFFIX) && n !== `${id}${STAGED_SUFFIX}`) await store.rm(dir(n));
      else if (KEPT_DIR_PATTERN.test(n) && n !== id && keptNumber(n) >= upTo)
        await store.rename(dir(n), dir(await store.orphanName(n)));
    }
    staged.clear();
    open.clear();
    await restoreTo(id, 'recover');
  };

  return {
    name: 'snapshot',
    snapshotsDir,
    start,
    checkpoint,
    commit,
    keep,
    revert,
    restoreBest: (bestId) => restoreTo(bestId, 'restoreBest'),
    recover,
    currentId: () => keptId,
    files: () => files,
    lastRestore: () => restored,
  };
}

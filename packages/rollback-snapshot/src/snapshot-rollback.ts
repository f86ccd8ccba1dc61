import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { ConfigError, LoopError, parseOptions, systemClock, type Checkpoint, type RollbackStrategy } from '@loop/core';
import { resolveMutableSurface } from './mutable-surface.js';
import { nodeSnapshotFs, type SnapshotFs } from './snapshot-fs.js';
import { BASELINE_DIR_PATTERN, KEPT_DIR_PATTERN, baselineDirName, keptDirName, preEditFileName, slugify } from './snapshot-names.js';
import { snapshotRollbackOptionsSchema, type SnapshotRollbackOptions } from './snapshot-rollback-options.js';

/** What the proposer is about to change, given to {@link SnapshotRollback.checkpoint}. */
export interface EditPlan {
  /** The mutable files the edit will touch (relative). Only these are copied. @default every mutable file */
  readonly files?: readonly string[];
  /** The seed's `<short-kebab-of-the-idea>`; free text is slugified. @default 'edit' */
  readonly slug?: string;
}

/** One file's pre-edit copy. */
export interface PreEditCopy {
  /** The mutable file, relative to the workspace. */
  readonly file: string;
  /** The copy's file name inside `snapshots/` (`<NNN>-pre-<slug>-<safe-F>-<UTC>`). */
  readonly snapshot: string;
  /** SHA-256 (hex) of the copied bytes. */
  readonly sha256: string;
}

/** A checkpoint of the snapshot rollback: the kept state's id plus the pre-edit copies. */
export interface SnapshotCheckpoint extends Checkpoint {
  /** The pre-edit copies taken for this iteration (seed 002 loop step 3). */
  readonly copies: readonly PreEditCopy[];
  /** The slug used in the copies' names. */
  readonly slug: string;
}

/** What {@link SnapshotRollback.start} did. */
export interface SnapshotStartReport {
  /** The mutable files, relative and sorted. */
  readonly files: readonly string[];
  /** The baseline directory's name (`000-baseline-<UTC>`), also the baseline's kept id. */
  readonly baselineId: string;
  /** True when an existing baseline was reused (resume: never re-baseline). */
  readonly resumed: boolean;
  /** The kept id the strategy starts from (the last kept directory on resume, else the baseline). */
  readonly keptId: string;
}

/** One file a restore touched. */
export interface RestoredFile {
  /** The mutable file, relative. */
  readonly file: string;
  /** The snapshot it was restored from (absolute). */
  readonly from: string;
}

/** The snapshot-copy {@link RollbackStrategy} with its setup and inspection members. */
export interface SnapshotRollback extends RollbackStrategy {
  /**
   * Setup (once per pass): resolves the mutable surface (explicit `files`, or git status read-only),
   * creates `<runDir>/snapshots/` and the baseline directory `000-baseline-<UTC>` holding every
   * mutable file at its relative path, copied with its mtime and mode. When a baseline directory
   * already exists it is reused (resume never re-baselines) and its files are the surface.
   *
   * @throws {ConfigError} `CONFIG_INVALID` when the surface is empty, a file is missing or not a
   *   regular file, or the run directory lies inside a mutable path.
   * @throws {LoopError} `NOT_A_REPOSITORY` when the surface comes from git and there is no repository.
   */
  readonly start: () => Promise<SnapshotStartReport>;
  /**
   * Copies the files the edit will touch (`plan.files`, else every mutable file) to
   * `snapshots/<NNN>-pre-<slug>-<safe-F>-<UTC>`, preserving mtime (seed 002 loop step 3). The
   * cost depends on the files copied, never on the size of the repository.
   *
   * @throws {LoopError} `CONFIG_INVALID` when a planned file is not in the mutable surface.
   */
  readonly checkpoint: (iteration: number, plan?: EditPlan) => Promise<SnapshotCheckpoint>;
  /**
   * Accepts the edit: every mutable file whose SHA-256 differs from the kept state is copied into
   * `snapshots/<NNN>-kept-<slug>-<UTC>/` (only the files that changed), and that directory's name
   * is the new kept id.
   */
  readonly keep: (checkpoint: Checkpoint, candidateId: string | undefined) => Promise<string>;
  /**
   * Restores every mutable file that differs from the checkpoint (the pre-edit copy, else the kept
   * state) with its snapshot's bytes, mode and mtime (`cp -p`), and verifies each (SHA-256 and
   * mtime). Idempotent.
   *
   * @throws {LoopError} `RESTORE_FAILED` (seed 002 `restore-failed`) listing the files that could
   *   not be restored or did not verify; every file is attempted first. The caller must halt: the
   *   tree may be mixed.
   */
  readonly revert: (checkpoint: Checkpoint, info: { iteration: number }) => Promise<void>;
  /**
   * On stop: restores the editable set to the kept state `bestId` (a kept directory, or the
   * baseline), rebuilt from disk as the baseline overlaid by the kept directories up to it. Every
   * target snapshot is checked readable first (`test -r`); nothing is copied if one is not.
   *
   * @throws {LoopError} `RESTORE_FAILED` naming the absent or unreadable snapshot, or the files
   *   that failed to restore or verify.
   */
  readonly restoreBest: (bestId: string) => Promise<void>;
  /** On resume: the same as {@link SnapshotRollback.restoreBest} for the kept id found in results.tsv. */
  readonly recover: (keptId: string) => Promise<void>;
  /** The current kept id. */
  readonly currentId: () => string;
  /** The mutable files (after `start`), relative and sorted. */
  readonly files: () => readonly string[];
  /** Absolute path of `<runDir>/snapshots`. */
  readonly snapshotsDir: string;
  /** The files the last revert, restoreBest or recover copied back (empty when nothing differed). */
  readonly lastRestore: () => readonly RestoredFile[];
}

interface KeptEntry {
  /** Absolute path of the file holding the kept bytes. */
  path: string;
  sha256: string;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * Creates the snapshot-copy rollback of seed 002: a baseline directory, per-iteration pre-edit
 * copies of only the touched files, verified `cp -p` restores, and a best-kept restore on stop.
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
  const snapshotsDir = join(o.runDir, 'snapshots');
  const tolerance = o.mtimeToleranceMs;
  let files: string[] = [];
  let baselineId = '';
  let keptId = '';
  let kept = new Map<string, KeptEntry>();
  let restored: RestoredFile[] = [];
  const checkpoints = new Map<number, SnapshotCheckpoint>();
  const abs = (rel: string) => join(o.workspace, rel);

  const where = '[loop] [rollback-snapshot]';

  const hashOrNull = async (path: string): Promise<string | null> => {
    try {
      return sha256(await fs.readFile(path));
    } catch {
      return null;
    }
  };

  /** `cp -p`: bytes, mode, atime and mtime. Returns the source's stats. */
  const copyPreserving = async (from: string, to: string) => {
    const info = await fs.stat(from);
    await fs.mkdir(dirname(to), { recursive: true });
    await fs.copyFile(from, to);
    await fs.chmod(to, info.mode & 0o7777);
    await fs.utimes(to, info.atime, info.mtime);
    return info;
  };

  /** A name not yet taken in `snapshots/` (two copies in the same second get `-2`, `-3`, ...). */
  const freeName = async (name: string): Promise<string> => {
    for (let n = 1; ; n += 1) {
      const candidate = n === 1 ? name : `${name}-${n}`;
      try {
        await fs.access(join(snapshotsDir, candidate));
      } catch {
        return candidate;
      }
    }
  };

  const listFiles = async (dir: string, prefix = ''): Promise<string[]> => {
    const out: string[] = [];
    for (const entry of (await fs.readdir(dir)).sort()) {
      const path = join(dir, entry);
      const rel = prefix ? `${prefix}/${entry}` : entry;
      if ((await fs.stat(path)).isDirectory()) out.push(...(await listFiles(path, rel)));
      else out.push(rel);
    }
    return out;
  };

  /** Restores each `(file → entry)` whose current hash differs, then verifies; throws RESTORE_FAILED listing every failure. */
  const restoreAll = async (targets: Map<string, KeptEntry>, what: string) => {
    restored = [];
    const failed: { file: string; snapshot: string; reason: string }[] = [];
    for (const [file, entry] of targets) {
      const dest = abs(file);
      if ((await hashOrNull(dest)) === entry.sha256) continue;
      try {
        const info = await copyPreserving(entry.path, dest);
        const after = await fs.stat(dest);
        if ((await hashOrNull(dest)) !== entry.sha256) throw new Error('content does not match the snapshot (SHA-256)');
        if (Math.abs(after.mtimeMs - info.mtimeMs) > tolerance) throw new Error(`mtime ${after.mtime.toISOString()} not preserved (snapshot ${info.mtime.toISOString()})`);
        restored.push({ file, from: entry.path });
      } catch (error) {
        failed.push({ file, snapshot: entry.path, reason: (error as Error)?.message ?? String(error) });
      }
    }
    if (failed.length > 0) {
      const list = failed.map((f) => `${f.file} from ${f.snapshot} (${f.reason})`).join('; ');
      throw new LoopError('RESTORE_FAILED', `${where} ${what} failed for ${list}; the workspace may be a mixed tree: halt the pass and restore those files by hand from the snapshots`, { details: { failed, restored: restored.map((r) => r.file) } });
    }
  };

  /** The kept state `id` rebuilt from disk: the baseline overlaid by the kept directories up to it. */
  const keptStateFromDisk = async (id: string): Promise<Map<string, KeptEntry>> => {
    const missing = (what: string, cause?: unknown) =>
      new LoopError('RESTORE_FAILED', `${where} cannot restore ${id}: ${what}; nothing was restored. Check ${snapshotsDir}`, { cause, details: { id, snapshotsDir } });
    const isBaseline = id === baselineId;
    const keptMatch = KEPT_DIR_PATTERN.exec(id);
    if (!isBaseline && !keptMatch) throw missing(`${id} is neither the baseline (${baselineId}) nor a kept snapshot directory`);
    const upTo = keptMatch ? Number(keptMatch[1]) : -1;
    let entries: string[];
    try {
      entries = await fs.readdir(snapshotsDir);
    } catch (error) {
      throw missing('the snapshots directory is absent or unreadable', error);
    }
    if (!entries.includes(baselineId)) throw missing(`the baseline snapshot ${baselineId} is absent`);
    if (!isBaseline && !entries.includes(id)) throw missing(`the kept snapshot ${id} is absent`);
    const keptDirs = entries
      .map((name) => ({ name, m: KEPT_DIR_PATTERN.exec(name) }))
      .filter((e) => e.m && Number(e.m[1]) <= upTo)
      .sort((a, b) => Number(a.m![1]) - Number(b.m![1]) || a.name.localeCompare(b.name));
    const paths = new Map<string, string>();
    for (const file of files) paths.set(file, join(snapshotsDir, baselineId, file));
    for (const dir of keptDirs) {
      for (const file of await listFiles(join(snapshotsDir, dir.name))) {
        if (paths.has(file)) paths.set(file, join(snapshotsDir, dir.name, file));
      }
    }
    // test -r every target first: surface an explicit error rather than copying a missing path.
    const targets = new Map<string, KeptEntry>();
    for (const [file, path] of paths) {
      try {
        await fs.access(path, constants.R_OK);
        if (!(await fs.stat(path)).isFile()) throw new Error('not a regular file');
        targets.set(file, { path, sha256: sha256(await fs.readFile(path)) });
      } catch (error) {
        throw missing(`the snapshot ${path} of ${file} is absent or unreadable (${(error as Error)?.message})`, error);
      }
    }
    return targets;
  };

  const start = async (): Promise<SnapshotStartReport> => {
    await fs.mkdir(snapshotsDir, { recursive: true });
    const existing = (await fs.readdir(snapshotsDir)).filter((n) => BASELINE_DIR_PATTERN.test(n)).sort();
    const runRel = relative(o.workspace, o.runDir).split(sep).join('/');
    if (existing.length > 0) {
      baselineId = existing[0]!;
      files = await listFiles(join(snapshotsDir, baselineId));
      const keptDirs = (await fs.readdir(snapshotsDir)).filter((n) => KEPT_DIR_PATTERN.test(n)).sort((a, b) => Number(KEPT_DIR_PATTERN.exec(a)![1]) - Number(KEPT_DIR_PATTERN.exec(b)![1]));
      keptId = keptDirs.at(-1) ?? baselineId;
      kept = await keptStateFromDisk(keptId);
      return { files, baselineId, resumed: true, keptId };
    }
    let surface: string[];
    if (o.files) {
      surface = o.files.map((f) => normalize(f).split(sep).join('/'));
    } else {
      const resolved = await resolveMutableSurface({ workspace: o.workspace, ...(o.isSource ? { isSource: o.isSource } : {}) });
      surface = [...resolved.files];
    }
    surface = [...new Set(surface)].filter((f) => !(runRel && !runRel.startsWith('..') && (f === runRel || f.startsWith(`${runRel}/`)))).sort();
    if (surface.length === 0) {
      throw new ConfigError('rollback-snapshot', [{ path: 'files', message: 'the mutable surface is empty: git status shows no changed source files; pass files explicitly' }]);
    }
    if (runRel && !runRel.startsWith('..') && surface.some((f) => runRel.startsWith(`${f}/`))) {
      throw new ConfigError('rollback-snapshot', [{ path: 'runDir', message: 'the run directory lies inside a mutable path' }]);
    }
    const issues = [];
    for (const [i, f] of surface.entries()) {
      try {
        if (!(await fs.stat(abs(f))).isFile()) issues.push({ path: `files.${i}`, message: `${f} is not a regular file` });
      } catch {
        issues.push({ path: `files.${i}`, message: `${f} does not exist in ${o.workspace}` });
      }
    }
    if (issues.length > 0) throw new ConfigError('rollback-snapshot', issues);
    files = surface;
    baselineId = baselineDirName(clock.now());
    kept = new Map();
    for (const f of files) {
      const path = join(snapshotsDir, baselineId, f);
      await copyPreserving(abs(f), path);
      kept.set(f, { path, sha256: sha256(await fs.readFile(abs(f))) });
    }
    keptId = baselineId;
    return { files, baselineId, resumed: false, keptId };
  };

  const requireStarted = (member: string) => {
    if (!baselineId) throw new LoopError('CONFIG_INVALID', `${where} ${member}() called before start(); call start() once per pass first`);
  };

  const checkpoint = async (iteration: number, plan: EditPlan = {}): Promise<SnapshotCheckpoint> => {
    requireStarted('checkpoint');
    const slug = slugify(plan.slug ?? 'edit');
    const planned = plan.files ? [...new Set(plan.files.map((f) => normalize(f).split(sep).join('/')))] : files;
    const outside = planned.filter((f) => !files.includes(f));
    if (outside.length > 0) {
      throw new LoopError('CONFIG_INVALID', `${where} the edit plans to touch ${outside.join(', ')}, outside the mutable surface; only ${files.join(', ')} may change`, { details: { outside } });
    }
    const copies: PreEditCopy[] = [];
    for (const file of planned) {
      const snapshot = await freeName(preEditFileName(iteration, slug, file, clock.now()));
      const bytes = await fs.readFile(abs(file));
      await copyPreserving(abs(file), join(snapshotsDir, snapshot));
      copies.push({ file, snapshot, sha256: sha256(bytes) });
    }
    const cp: SnapshotCheckpoint = { iteration, id: keptId, copies, slug };
    checkpoints.set(iteration, cp);
    return cp;
  };

  const keep = async (cp: Checkpoint): Promise<string> => {
    requireStarted('keep');
    const slug = checkpoints.get(cp.iteration)?.slug ?? 'edit';
    const id = await freeName(keptDirName(cp.iteration, slug, clock.now()));
    await fs.mkdir(join(snapshotsDir, id), { recursive: true });
    for (const file of files) {
      const now = await hashOrNull(abs(file));
      if (now === null || now === kept.get(file)?.sha256) continue;
      const path = join(snapshotsDir, id, file);
      await copyPreserving(abs(file), path);
      kept.set(file, { path, sha256: now });
    }
    keptId = id;
    checkpoints.delete(cp.iteration);
    return id;
  };

  const revert = async (cp: Checkpoint): Promise<void> => {
    requireStarted('revert');
    const pre = checkpoints.get(cp.iteration);
    const targets = new Map(kept);
    for (const c of pre?.copies ?? []) targets.set(c.file, { path: join(snapshotsDir, c.snapshot), sha256: c.sha256 });
    await restoreAll(targets, `revert of iteration ${cp.iteration}`);
  };

  const restoreTo = async (id: string, what: string) => {
    requireStarted(what);
    const targets = await keptStateFromDisk(id);
    await restoreAll(targets, `${what} to ${id}`);
    kept = targets;
    keptId = id;
  };

  return {
    name: 'snapshot',
    snapshotsDir,
    start,
    checkpoint,
    keep,
    revert,
    restoreBest: (bestId) => restoreTo(bestId, 'restoreBest'),
    recover: (id) => restoreTo(id, 'recover'),
    currentId: () => keptId,
    files: () => files,
    lastRestore: () => restored,
  };
}

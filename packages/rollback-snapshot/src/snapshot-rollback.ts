import { join, normalize, relative, sep } from 'node:path';
import { ConfigError, LoopError, parseOptions, systemClock, type Checkpoint, type CandidateInfo } from '@loop/core';
import { resolveMutableSurface } from './mutable-surface.js';
import { nodeSnapshotFs, type SnapshotFs } from './snapshot-fs.js';
import { BASELINE_DIR_PATTERN, KEPT_DIR_PATTERN, baselineDirName, keptDirName, preEditFileName, slugify } from './snapshot-names.js';
import { snapshotRollbackOptionsSchema, type SnapshotRollbackOptions } from './snapshot-rollback-options.js';
import { createSnapshotStore, ORPHAN_SUFFIX, PARTIAL_SUFFIX, sha256, STAGED_SUFFIX, type KeptEntry } from './snapshot-rollback-store.js';
import type { EditPlan, PreEditCopy, RestoredFile, SnapshotCheckpoint, SnapshotRollback, SnapshotStartReport } from './snapshot-rollback-types.js';

export type { EditPlan, PreEditCopy, RestoredFile, SnapshotCheckpoint, SnapshotRollback, SnapshotStartReport } from './snapshot-rollback-types.js';

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
  const snapshotsDir = join(o.runDir, 'snapshots');
  const store = createSnapshotStore({ fs, workspace: o.workspace, snapshotsDir, mtimeToleranceMs: o.mtimeToleranceMs });
  const { abs } = store;
  let files: string[] = [];
  let baselineId = '';
  let keptId = '';
  let kept = new Map<string, KeptEntry>();
  let restored: RestoredFile[] = [];
  const checkpoints = new Map<number, SnapshotCheckpoint>();
  /** Per iteration: the staged candidate's kept id and the entries it will add. */
  const staged = new Map<number, { id: string; entries: Map<string, KeptEntry> }>();
  const dir = (name: string) => join(snapshotsDir, name);

  const resolveSurface = async (): Promise<string[]> => {
    const runRel = relative(o.workspace, o.runDir).split(sep).join('/');
    const inRun = (f: string) => runRel && !runRel.startsWith('..') && (f === runRel || f.startsWith(`${runRel}/`));
    const surface = o.files
      ? o.files.map((f) => normalize(f).split(sep).join('/'))
      : [...(await resolveMutableSurface({ workspace: o.workspace, ...(o.isSource ? { isSource: o.isSource } : {}) })).files];
    const unique = [...new Set(surface)].filter((f) => !inRun(f)).sort();
    if (unique.length === 0) {
      throw new ConfigError('rollback-snapshot', [{ path: 'files', message: 'the mutable surface is empty: git status shows no changed source files; pass files explicitly' }]);
    }
    if (runRel && !runRel.startsWith('..') && unique.some((f) => runRel.startsWith(`${f}/`))) {
      throw new ConfigError('rollback-snapshot', [{ path: 'runDir', message: 'the run directory lies inside a mutable path' }]);
    }
    const issues = [];
    for (const [i, f] of unique.entries()) {
      try {
        if (!(await fs.stat(abs(f))).isFile()) issues.push({ path: `files.${i}`, message: `${f} is not a regular file` });
      } catch {
        issues.push({ path: `files.${i}`, message: `${f} does not exist in ${o.workspace}` });
      }
    }
    if (issues.length > 0) throw new ConfigError('rollback-snapshot', issues);
    return unique;
  };

  const start = async (): Promise<SnapshotStartReport> => {
    await fs.mkdir(snapshotsDir, { recursive: true });
    const names = await fs.readdir(snapshotsDir);
    // A baseline copy killed midway: nothing was edited yet, so drop it and copy the baseline again.
    for (const n of names.filter((x) => x.endsWith(PARTIAL_SUFFIX) && BASELINE_DIR_PATTERN.test(x.slice(0, -PARTIAL_SUFFIX.length)))) await store.rm(dir(n));
    const existing = names.filter((n) => BASELINE_DIR_PATTERN.test(n)).sort();
    if (existing.length > 0) {
      baselineId = existing[0]!;
      files = await store.listFiles(dir(baselineId));
      const keptDirs = names.filter((n) => KEPT_DIR_PATTERN.test(n)).sort((a, b) => keptNumber(a) - keptNumber(b) || a.localeCompare(b));
      keptId = keptDirs.at(-1) ?? baselineId;
      kept = await store.keptStateFromDisk(keptId, baselineId, files);
      return { files, baselineId, resumed: true, keptId };
    }
    files = await resolveSurface();
    const id = baselineDirName(clock.now());
    const partial = `${id}${PARTIAL_SUFFIX}`;
    const entries = new Map<string, KeptEntry>();
    for (const f of files) {
      await store.copyPreserving(abs(f), join(dir(partial), f));
      entries.set(f, { path: join(dir(id), f), sha256: sha256(await fs.readFile(abs(f))) });
    }
    await store.rename(dir(partial), dir(id));
    baselineId = keptId = id;
    kept = entries;
    return { files, baselineId, resumed: false, keptId };
  };

  const requireStarted = (member: string) => {
    if (!baselineId) throw new LoopError('CONFIG_INVALID', `${where} ${member}() called before start(); call start() once per pass first`);
  };

  const checkpoint = async (iteration: number, plan: EditPlan = {}): Promise<SnapshotCheckpoint> => {
    requireStarted('checkpoint');
    if (iteration === 0) return { iteration, id: keptId, copies: [], slug: 'baseline' };
    const slug = slugify(plan.slug ?? 'edit');
    const planned = plan.files ? [...new Set(plan.files.map((f) => normalize(f).split(sep).join('/')))] : files;
    const outside = planned.filter((f) => !files.includes(f));
    if (outside.length > 0) {
      throw new LoopError('CONFIG_INVALID', `${where} the edit plans to touch ${outside.join(', ')}, outside the mutable surface; only ${files.join(', ')} may change`, { details: { outside } });
    }
    const copies: PreEditCopy[] = [];
    for (const file of planned) {
      const snapshot = await store.freeName(preEditFileName(iteration, slug, file, clock.now()));
      const bytes = await fs.readFile(abs(file));
      await store.copyPreserving(abs(file), dir(snapshot));
      copies.push({ file, snapshot, sha256: sha256(bytes) });
    }
    const cp: SnapshotCheckpoint = { iteration, id: keptId, copies, slug };
    checkpoints.set(iteration, cp);
    return cp;
  };

  const dropStaged = async (iteration: number) => {
    const s = staged.get(iteration);
    if (s) await store.rm(dir(`${s.id}${STAGED_SUFFIX}`));
    staged.delete(iteration);
  };

  /** Copies the files that differ from the kept state into `<id>.staged/`; returns the future kept id. */
  const stage = async (iteration: number): Promise<string> => {
    await dropStaged(iteration);
    const slug = checkpoints.get(iteration)?.slug ?? 'edit';
    const id = await store.freeName(keptDirName(iteration, slug, clock.now()));
    const tmp = dir(`${id}${STAGED_SUFFIX}`);
    await fs.mkdir(tmp, { recursive: true });
    const entries = new Map<string, KeptEntry>();
    for (const file of files) {
      const now = await store.hashOrNull(abs(file));
      if (now === null || now === kept.get(file)?.sha256) continue;
      await store.copyPreserving(abs(file), join(tmp, file));
      entries.set(file, { path: join(dir(id), file), sha256: now });
    }
    staged.set(iteration, { id, entries });
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
    const entries = staged.get(cp.iteration)!.entries;
    await store.rename(dir(`${id}${STAGED_SUFFIX}`), dir(id));
    for (const [file, entry] of entries) kept.set(file, entry);
    keptId = id;
    staged.delete(cp.iteration);
    checkpoints.delete(cp.iteration);
    return id;
  };

  const revert = async (cp: Checkpoint): Promise<void> => {
    requireStarted('revert');
    const pre = checkpoints.get(cp.iteration);
    const targets = new Map(kept);
    for (const c of pre?.copies ?? []) targets.set(c.file, { path: dir(c.snapshot), sha256: c.sha256 });
    restored = [];
    restored = await store.restoreAll(targets, `revert of iteration ${cp.iteration}`);
    await dropStaged(cp.iteration);
  };

  const restoreTo = async (id: string, what: string) => {
    requireStarted(what);
    const targets = await store.keptStateFromDisk(id, baselineId, files);
    restored = [];
    restored = await store.restoreAll(targets, `${what} to ${id}`);
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
      else if (KEPT_DIR_PATTERN.test(n) && n !== id && keptNumber(n) >= upTo) await store.rename(dir(n), dir(await orphanName(n)));
    }
    staged.clear();
    await restoreTo(id, 'recover');
  };

  const orphanName = async (name: string) => {
    for (let n = 1; ; n += 1) {
      const candidate = `${name}${ORPHAN_SUFFIX}${n === 1 ? '' : `-${n}`}`;
      if (!(await store.exists(candidate))) return candidate;
    }
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

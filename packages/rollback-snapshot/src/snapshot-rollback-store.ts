import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import * as nodeFs from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LoopError } from '@loop/core';
import pLimit from 'p-limit';
import type { SnapshotFs } from './snapshot-fs.js';
import { KEPT_DIR_PATTERN } from './snapshot-names.js';
import type { RestoredFile } from './snapshot-rollback-types.js';

/** A file's kept bytes: where they are stored and their SHA-256; or its absence (a kept deletion). */
export interface KeptEntry {
  /** Absolute path of the file holding the kept bytes (`''` for an absent file). */
  readonly path: string;
  /** SHA-256 (hex) of those bytes; `null`: the file does not exist in that state (a restore removes it). */
  readonly sha256: string | null;
}

/**
 * The file in a kept directory listing the mutable files the kept iteration deleted (a JSON array
 * of relative paths), written before the directory is renamed into place. Never a mutable file.
 */
export const DELETED_LIST = '.loop-deleted.json';

/** Suffix of a kept directory whose copy is not yet accepted (`commit` before the engine's keep). */
export const STAGED_SUFFIX = '.staged';
/** Suffix of a baseline directory being copied (renamed away once complete). */
export const PARTIAL_SUFFIX = '.partial';
/** Suffix given to a kept directory the results log does not lead to (set aside on recover). */
export const ORPHAN_SUFFIX = '.orphan';

/** SHA-256 (hex) of `bytes`. */
export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const where = '[loop] [rollback-snapshot]';

/**
 * The file operations of the snapshot rollback over one `snapshots/` directory: `cp -p` copies,
 * verified restores, directory listings, atomic renames and the kept state read back from disk.
 * `rename` and `rm` come from the injected fs when it has them, else from `node:fs/promises`
 * (the {@link SnapshotFs} contract predates them).
 */
export function createSnapshotStore(o: {
  fs: SnapshotFs;
  workspace: string;
  snapshotsDir: string;
  mtimeToleranceMs: number;
  concurrency: number;
}) {
  const { fs, snapshotsDir } = o;
  /** The bounded pool every per-file copy, hash and restore runs in. */
  const limit = pLimit(o.concurrency);
  const each = <T, R>(items: Iterable<T>, f: (item: T) => Promise<R>): Promise<R[]> =>
    Promise.all([...items].map((item) => limit(() => f(item))));
  const rename = (from: string, to: string) => (fs.rename ? fs.rename(from, to) : nodeFs.rename(from, to));
  const rm = (path: string) =>
    fs.rm ? fs.rm(path, { recursive: true, force: true }) : nodeFs.rm(path, { recursive: true, force: true });
  const abs = (rel: string) => join(o.workspace, rel);

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
    // snapshots/ exists from start()
    if (dirname(to) !== snapshotsDir) await fs.mkdir(dirname(to), { recursive: true });
    await fs.copyFile(from, to);
    await fs.chmod(to, info.mode & 0o7777);
    await fs.utimes(to, info.atime, info.mtime);
    return info;
  };

  /** True when `name` exists in `snapshots/`. */
  const exists = async (name: string) =>
    fs.access(join(snapshotsDir, name)).then(
      () => true,
      () => false,
    );

  /** A name not yet taken in `snapshots/`, staged or not (two copies in the same second get `-2`, `-3`, ...). */
  const freeName = async (name: string): Promise<string> => {
    for (let n = 1; ; n += 1) {
      const candidate = n === 1 ? name : `${name}-${n}`;
      if (!(await exists(candidate)) && !(await exists(`${candidate}${STAGED_SUFFIX}`))) return candidate;
    }
  };

  const listFiles = async (dir: string, prefix = ''): Promise<string[]> => {
    const out: string[] = [];
    for (const entry of (await fs.readdir(dir)).sort()) {
      if (prefix === '' && entry === DELETED_LIST) continue;
      const path = join(dir, entry);
      const rel = prefix ? `${prefix}/${entry}` : entry;
      if ((await fs.stat(path)).isDirectory()) out.push(...(await listFiles(path, rel)));
      else out.push(rel);
    }
    return out;
  };

  /**
   * Restores each `(file → entry)` whose current hash differs, `concurrency` files at a time, then
   * verifies each (SHA-256 and mtime); every file is attempted; throws RESTORE_FAILED listing every failure.
   */
  const restoreAll = async (targets: ReadonlyMap<string, KeptEntry>, what: string): Promise<RestoredFile[]> => {
    const restored: RestoredFile[] = [];
    const failed: { file: string; snapshot: string; reason: string }[] = [];
    await each(targets, async ([file, entry]) => {
      const dest = abs(file);
      if ((await hashOrNull(dest)) === entry.sha256) return;
      if (entry.sha256 === null) {
        try {
          await rm(dest);
          if ((await hashOrNull(dest)) !== null) throw new Error('still present after removal');
          restored.push({ file, from: '' });
        } catch (error) {
          failed.push({
            file,
            snapshot: '(deleted in the kept state)',
            reason: (error as Error)?.message ?? String(error),
          });
        }
        return;
      }
      try {
        const info = await copyPreserving(entry.path, dest); // (a directory the edit removed is made again)
        const after = await fs.stat(dest);
        if ((await hashOrNull(dest)) !== entry.sha256) throw new Error('content does not match the snapshot (SHA-256)');
        if (Math.abs(after.mtimeMs - info.mtimeMs) > o.mtimeToleranceMs)
          throw new Error(`mtime ${after.mtime.toISOString()} not preserved (snapshot ${info.mtime.toISOString()})`);
        restored.push({ file, from: entry.path });
      } catch (error) {
        failed.push({ file, snapshot: entry.path, reason: (error as Error)?.message ?? String(error) });
      }
    });
    const byFile = (a: { file: string }, b: { file: string }) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
    restored.sort(byFile);
    failed.sort(byFile);
    if (failed.length > 0) {
      const list = failed.map((f) => `${f.file} from ${f.snapshot} (${f.reason})`).join('; ');
      throw new LoopError(
        'RESTORE_FAILED',
        `${where} ${what} failed for ${list}; the workspace may be a mixed tree: ` +
          `halt the pass and restore those files by hand from the snapshots`,
        { details: { failed, restored: restored.map((r) => r.file) } },
      );
    }
    return restored;
  };

  /**
   * The kept state `id` rebuilt from disk: the baseline overlaid by the kept directories up to it.
   * Every failure (an absent or unreadable directory or file) is `RESTORE_FAILED`, never a raw fs error.
   */
  const keptStateFromDisk = async (
    id: string,
    baselineId: string,
    files: readonly string[],
  ): Promise<Map<string, KeptEntry>> => {
    const missing = (what: string, cause?: unknown) =>
      new LoopError(
        'RESTORE_FAILED',
        `${where} cannot restore ${id}: ${what}; nothing was restored. Check ${snapshotsDir}`,
        { cause, details: { id, snapshotsDir } },
      );
    const isBaseline = id === baselineId;
    const keptMatch = KEPT_DIR_PATTERN.exec(id);
    if (!isBaseline && !keptMatch)
      throw missing(`${id} is neither the baseline (${baselineId}) nor a kept snapshot directory`);
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
    /** file → the path holding its bytes in the state, or null when the state deleted it. */
    const paths = new Map<string, string | null>();
    for (const file of files) paths.set(file, join(snapshotsDir, baselineId, file));
    for (const dir of keptDirs) {
      let inDir: string[];
      let deleted: string[] = [];
      try {
        inDir = await listFiles(join(snapshotsDir, dir.name));
        const list = join(snapshotsDir, dir.name, DELETED_LIST);
        if (
          await fs.access(list).then(
            () => true,
            () => false,
          )
        )
          deleted = JSON.parse(Buffer.from(await fs.readFile(list)).toString('utf8')) as string[];
      } catch (error) {
        throw missing(
          `the kept snapshot ${join(snapshotsDir, dir.name)} is absent or unreadable (${(error as Error)?.message})`,
          error,
        );
      }
      for (const file of inDir) if (paths.has(file)) paths.set(file, join(snapshotsDir, dir.name, file));
      for (const file of deleted) if (paths.has(file)) paths.set(file, null);
    }
    // test -r every target first: surface an explicit error rather than copying a missing path.
    const targets = new Map<string, KeptEntry>();
    const checked = await each(paths, async ([file, path]) => {
      if (path === null) return { file, entry: { path: '', sha256: null } };
      try {
        await fs.access(path, constants.R_OK);
        if (!(await fs.stat(path)).isFile()) throw new Error('not a regular file');
        return { file, entry: { path, sha256: sha256(await fs.readFile(path)) } };
      } catch (error) {
        return { file, error, path };
      }
    });
    for (const c of checked) {
      if ('error' in c)
        throw missing(
          `the snapshot ${c.path} of ${c.file} is absent or unreadable (${(c.error as Error)?.message})`,
          c.error,
        );
      targets.set(c.file, c.entry);
    }
    return targets;
  };

  /** A free `<name>.orphan[-N]` name for a kept directory no row records (set aside on resume). */
  const orphanName = async (name: string) => {
    for (let n = 1; ; n += 1) {
      const candidate = `${name}${ORPHAN_SUFFIX}${n === 1 ? '' : `-${n}`}`;
      if (!(await exists(candidate))) return candidate;
    }
  };

  /**
   * Copies the `changed` files that differ from the kept state (`keptHash`) into `tmp` (a candidate's
   * `<id>.staged/`), a deleted one listed in its {@link DELETED_LIST}; returns the entries the kept
   * state gains once `tmp` is renamed to `finalDir`.
   */
  const stageInto = async (
    tmp: string,
    finalDir: string,
    changed: readonly string[],
    keptHash: (file: string) => string | null,
  ): Promise<Map<string, KeptEntry>> => {
    const entries = new Map<string, KeptEntry>();
    await each(changed, async (file) => {
      const now = await hashOrNull(abs(file));
      if (now === keptHash(file)) return;
      if (now === null) {
        entries.set(file, { path: '', sha256: null }); // deleted by the candidate: stays deleted in the kept state
        return;
      }
      await copyPreserving(abs(file), join(tmp, file));
      entries.set(file, { path: join(finalDir, file), sha256: now });
    });
    const deleted = [...entries]
      .filter(([, e]) => e.sha256 === null)
      .map(([f]) => f)
      .sort();
    if (deleted.length > 0) {
      const bytes = Buffer.from(JSON.stringify(deleted), 'utf8');
      await (fs.writeFile
        ? fs.writeFile(join(tmp, DELETED_LIST), bytes)
        : nodeFs.writeFile(join(tmp, DELETED_LIST), bytes));
    }
    return entries;
  };

  return {
    abs,
    each,
    orphanName,
    stageInto,
    hashOrNull,
    copyPreserving,
    exists,
    freeName,
    listFiles,
    restoreAll,
    keptStateFromDisk,
    rename,
    rm,
  };
}

/** The store {@link createSnapshotStore} returns. */
export type SnapshotStore = ReturnType<typeof createSnapshotStore>;

import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { TreeSnapshotFs } from '../tree-snapshot-fs.js';
import type { TreeEntry } from '../tree-snapshot-types.js';
import { sha256 } from './object-store.js';

type FileEntry = Extract<TreeEntry, { type: 'file' }>;

/** What it takes to turn one tree into another; every list holds relative paths. */
export interface RestorePlan {
  /** Paths to remove (extra, or of another type), deepest first. */
  readonly remove: string[];
  /** Directories to create, shallowest first. */
  readonly mkdir: string[];
  /** Files to (re)write with their wanted entry. */
  readonly write: [string, FileEntry][];
  /** Symlinks to (re)create with their target. */
  readonly link: [string, string][];
  /** Files and directories whose mode only differs, with the wanted mode (directories last, deepest first). */
  readonly chmod: [string, number][];
}

const depth = (path: string) => path.split('/').length;

function sameContent(a: TreeEntry, b: TreeEntry): boolean {
  if (a.type === 'file' && b.type === 'file') return a.hash === b.hash;
  if (a.type === 'symlink' && b.type === 'symlink') return a.target === b.target;
  return a.type === 'dir' && b.type === 'dir';
}

/** True when two entries are equal in content, type and mode. */
export function sameEntry(a: TreeEntry, b: TreeEntry): boolean {
  if (!sameContent(a, b)) return false;
  return a.type === 'symlink' || a.mode === (b as { mode: number }).mode;
}

/**
 * The current tree as seen against a target: `seen` holds every current path, `differing` the
 * current entries that are not equal to the target's entry at that path (absent there included).
 * A current path in `seen` but not in `differing` is already right.
 */
export interface TreeComparison {
  readonly seen: ReadonlySet<string>;
  readonly differing: ReadonlyMap<string, TreeEntry>;
}

/** Compares two full entry maps (the slow path: failure rollback and tests). */
export function compareEntries(
  current: ReadonlyMap<string, TreeEntry>,
  target: ReadonlyMap<string, TreeEntry>,
): TreeComparison {
  const differing = new Map<string, TreeEntry>();
  for (const [path, entry] of current) {
    const want = target.get(path);
    if (want === undefined || !sameEntry(entry, want)) differing.set(path, entry);
  }
  return { seen: new Set(current.keys()), differing };
}

/** The current tree's full entries, rebuilt from a comparison with `target`. */
export function currentEntries(cmp: TreeComparison, target: ReadonlyMap<string, TreeEntry>): Map<string, TreeEntry> {
  const out = new Map<string, TreeEntry>();
  for (const [path, entry] of target) if (cmp.seen.has(path) && !cmp.differing.has(path)) out.set(path, entry);
  for (const [path, entry] of cmp.differing) out.set(path, entry);
  return out;
}

/** The plan that turns the compared current tree into `target`. Cost: one pass over `target` plus the differences. */
export function planRestore(cmp: TreeComparison, target: ReadonlyMap<string, TreeEntry>): RestorePlan {
  const plan: RestorePlan = { remove: [], mkdir: [], write: [], link: [], chmod: [] };
  const removed = new Set<string>();
  for (const [path, entry] of cmp.differing) {
    if (target.get(path)?.type !== entry.type) {
      plan.remove.push(path);
      removed.add(path);
    }
  }
  const dirModes: [string, number][] = [];
  for (const [path, want] of target) {
    if (cmp.seen.has(path) && !cmp.differing.has(path)) continue; // already right
    const have = removed.has(path) || !cmp.seen.has(path) ? undefined : cmp.differing.get(path);
    if (have === undefined || !sameContent(have, want)) {
      if (want.type === 'dir') plan.mkdir.push(path);
      else if (want.type === 'file') plan.write.push([path, want]);
      else plan.link.push([path, want.target]);
    }
    if (want.type === 'symlink') continue;
    const haveMode = have !== undefined && have.type !== 'symlink' ? have.mode : -1;
    if (want.type === 'dir' && haveMode !== want.mode) dirModes.push([path, want.mode]);
    else if (want.type === 'file' && have !== undefined && sameContent(have, want) && haveMode !== want.mode)
      plan.chmod.push([path, want.mode]);
  }
  // A path under a removed directory goes with it.
  const under = (path: string) => {
    for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1))
      if (removed.has(path.slice(0, i))) return true;
    return false;
  };
  plan.remove.splice(
    0,
    plan.remove.length,
    ...plan.remove.filter((p) => !under(p)).sort((a, b) => depth(b) - depth(a)),
  );
  plan.mkdir.sort((a, b) => depth(a) - depth(b));
  plan.chmod.push(...dirModes.sort(([a], [b]) => depth(b) - depth(a)));
  return plan;
}

/** True when the plan changes nothing. */
export const isEmptyPlan = (p: RestorePlan): boolean =>
  p.remove.length + p.mkdir.length + p.write.length + p.link.length + p.chmod.length === 0;

/** A failure while applying a plan: the path and what went wrong. */
export interface ApplyFailure {
  readonly path: string;
  readonly reason: string;
}

/**
 * Applies `plan` under `root` with the verified `blobs` (hash → bytes, every written hash present):
 * removes, creates directories, writes each file to a temp file in its directory then renames it
 * over (mode set on the temp file), recreates symlinks verbatim, then sets modes (directories last,
 * so a read-only directory does not block its files). Then re-reads every written file and checks
 * its hash, and checks removed paths are gone. Stops at the first failure and returns it.
 */
export function applyPlan(
  root: string,
  plan: RestorePlan,
  blobs: ReadonlyMap<string, Buffer>,
  fs: TreeSnapshotFs,
): ApplyFailure | undefined {
  const abs = (path: string) => join(root, ...path.split('/'));
  let at = '';
  try {
    for (const path of plan.remove) {
      at = path;
      fs.rmSync(abs(path), { recursive: true, force: true });
    }
    for (const path of plan.mkdir) {
      at = path;
      fs.mkdirSync(abs(path), { recursive: true });
    }
    for (const [path, entry] of plan.write) {
      at = path;
      const file = abs(path);
      // A short name in the same directory: a suffix on a long file name could exceed NAME_MAX.
      const tmp = join(dirname(file), `.${randomBytes(6).toString('hex')}.restore-tmp`);
      try {
        fs.writeFileSync(tmp, blobs.get(entry.hash)!, { mode: entry.mode });
        fs.chmodSync(tmp, entry.mode); // the umask applies to writeFile's mode
        fs.renameSync(tmp, file);
      } catch (error) {
        fs.rmSync(tmp, { force: true }); // (a kill leaves it: an extra the next restore removes)
        throw error;
      }
    }
    for (const [path, target] of plan.link) {
      at = path;
      fs.rmSync(abs(path), { force: true });
      fs.symlinkSync(target, abs(path));
    }
    for (const [path, mode] of plan.chmod) {
      at = path;
      fs.chmodSync(abs(path), mode);
    }
  } catch (error) {
    return { path: at, reason: (error as Error).message };
  }
  for (const [path, entry] of plan.write) {
    const bytes = (() => {
      try {
        return fs.readFileSync(abs(path));
      } catch {
        return undefined;
      }
    })();
    if (bytes === undefined || sha256(bytes) !== entry.hash)
      return { path, reason: 'the restored content does not hash to the snapshot' };
    if ((fs.lstatSync(abs(path)).mode & 0o7777) !== entry.mode)
      return { path, reason: 'the restored mode differs from the snapshot' };
  }
  for (const [path, target] of plan.link) {
    if (fs.readlinkSync(abs(path)) !== target)
      return { path, reason: 'the restored symlink target differs from the snapshot' };
  }
  for (const path of plan.remove) {
    const left = (() => {
      try {
        fs.lstatSync(abs(path));
        return true;
      } catch {
        return false;
      }
    })();
    if (
      left &&
      !plan.mkdir.includes(path) &&
      !plan.write.some(([p]) => p === path) &&
      !plan.link.some(([p]) => p === path)
    )
      return { path, reason: 'still present after removal' };
  }
  return undefined;
}

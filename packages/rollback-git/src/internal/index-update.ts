import type { GitFsStats } from '../git-fs.js';
import { foreignCode } from './errors.js';
import { serializeIndex, type RawIndexEntry } from './index-write.js';
import type { Repo } from './repo.js';
import type { BlobEntry } from './tree-diff.js';

/** One path to stage: its blob and the working-tree stats taken before its content was read. */
export interface StagedFile {
  /** Relative path. */
  readonly path: string;
  /** The blob and git mode now in the working tree. */
  readonly blob: BlobEntry;
  /** `lstat` of the file (taken before reading it, so a later change shows as a stat change); `undefined`: no stat data. */
  readonly stats: GitFsStats | undefined;
}

/**
 * Parses a `.git/index` this module can rewrite losslessly: version 2 or 3, stage 0 only, no
 * skip-worktree / intent-to-add flags, and only optional extensions (upper-case signatures such as
 * `TREE` and `UNTR`, dropped on rewrite, which git accepts). `undefined` for anything else (version
 * 4, conflicts, a split or sparse index): the caller then lets isomorphic-git stage.
 */
export function parseRawIndex(bytes: Uint8Array): RawIndexEntry[] | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.byteLength < 32 || buf.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = buf.readUInt32BE(4);
  if (version !== 2 && version !== 3) return undefined;
  const count = buf.readUInt32BE(8);
  const end = buf.byteLength - 20;
  const entries: RawIndexEntry[] = [];
  let offset = 12;
  for (let i = 0; i < count; i += 1) {
    if (offset + 62 > end) return undefined;
    const flags = buf.readUInt16BE(offset + 60);
    if ((flags & 0x3000) !== 0) return undefined; // a conflict stage
    let pathStart = offset + 62;
    if ((flags & 0x4000) !== 0) {
      if (buf.readUInt16BE(pathStart) !== 0) return undefined; // skip-worktree, intent-to-add
      pathStart += 2;
    }
    const nul = buf.indexOf(0, pathStart);
    if (nul === -1 || nul > end) return undefined;
    const u = (k: number) => buf.readUInt32BE(offset + k * 4);
    entries.push({
      path: buf.toString('utf8', pathStart, nul),
      ctimeS: u(0), ctimeNs: u(1), mtimeS: u(2), mtimeNs: u(3), dev: u(4), ino: u(5), mode: u(6), uid: u(7), gid: u(8), size: u(9),
      oid: buf.toString('hex', offset + 40, offset + 60),
    });
    offset += Math.ceil((nul - offset + 1) / 8) * 8;
  }
  while (offset + 8 <= end) {
    const first = buf[offset] ?? 0;
    if (first < 0x41 || first > 0x5a) return undefined; // a required extension (link, sdir)
    offset += 8 + buf.readUInt32BE(offset + 4);
  }
  return entries;
}

const toSecondsNs = (ms: number): [number, number] => {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.max(0, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6)))];
};

/** An index entry for a staged file, with the stat data git compares. */
export function entryOf(file: StagedFile): RawIndexEntry {
  const s = file.stats as (GitFsStats & { dev?: number | bigint; uid?: number | bigint; gid?: number | bigint }) | undefined;
  if (s === undefined) {
    return { path: file.path, oid: file.blob.oid, mode: file.blob.mode, ctimeS: 0, ctimeNs: 0, mtimeS: 0, mtimeNs: 0, dev: 0, ino: 0, uid: 0, gid: 0, size: 0 };
  }
  const [ctimeS, ctimeNs] = toSecondsNs(Number(s.ctimeMs));
  const [mtimeS, mtimeNs] = toSecondsNs(Number(s.mtimeMs));
  const low = (v: number | bigint | undefined) => Number(v ?? 0) % 2 ** 32;
  return { path: file.path, oid: file.blob.oid, mode: file.blob.mode, ctimeS, ctimeNs, mtimeS, mtimeNs, dev: low(s.dev), ino: low(s.ino), uid: low(s.uid), gid: low(s.gid), size: low(s.size) };
}

/**
 * Stages `set` and unstages `remove` in ONE rewrite of `.git/index` (through `index.lock`),
 * instead of one isomorphic-git `add`/`remove` per call, each rewriting the whole index (issue 13).
 * A staged path replaces whatever stood in its way: an entry for one of its parent directories
 * (a file that became a directory) and entries under it (a directory that became a file).
 *
 * @returns the entries now in the index for the touched paths (`undefined`: not in the index), so
 *   a caller can verify without parsing the file again; `undefined` when the index is in a form
 *   {@link parseRawIndex} does not rewrite (the caller falls back to isomorphic-git).
 */
export async function updateIndex(
  repo: Repo,
  set: readonly StagedFile[],
  remove: readonly string[],
): Promise<Map<string, BlobEntry | undefined> | undefined> {
  let entries: RawIndexEntry[];
  try {
    const raw = await repo.fs.promises.readFile(`${repo.gitdir}/index`);
    const parsed = parseRawIndex(typeof raw === 'string' ? new TextEncoder().encode(raw) : raw);
    if (parsed === undefined) return undefined;
    entries = parsed;
  } catch (error) {
    if (foreignCode(error) !== 'ENOENT') throw error;
    entries = [];
  }
  const byPath = new Map(entries.map((entry) => [entry.path, entry]));
  for (const path of remove) byPath.delete(path);
  const staged = new Set(set.map((file) => file.path));
  if (set.length > 0) {
    const parents = new Set<string>();
    for (const path of staged) for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) parents.add(path.slice(0, i));
    for (const path of [...byPath.keys()]) {
      if (parents.has(path)) byPath.delete(path); // a file where a directory is now staged
      else if (!staged.has(path) && path.includes('/')) {
        for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
          if (staged.has(path.slice(0, i))) {
            byPath.delete(path); // under a path now staged as a file
            break;
          }
        }
      }
    }
  }
  for (const file of set) byPath.set(file.path, entryOf(file));
  await repo.fs.promises.writeFile(`${repo.gitdir}/index`, serializeIndex([...byPath.values()]));
  const result = new Map<string, BlobEntry | undefined>();
  for (const path of [...remove, ...staged]) {
    const entry = byPath.get(path);
    result.set(path, entry === undefined ? undefined : { oid: entry.oid, mode: entry.mode });
  }
  return result;
}

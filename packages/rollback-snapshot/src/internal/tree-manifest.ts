import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { TreeSnapshotFs } from '../tree-snapshot-fs.js';
import type { TreeEntry, TreeSnapshot } from '../tree-snapshot-types.js';

/** Names a saved snapshot may have: letters, digits, `.`, `_` and `-`, not starting with `.`. */
export const MANIFEST_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * Suffix of every temporary file the store writes (objects and manifests); a leftover one is a kill's, swept on open.
 */
export const TEMP_SUFFIX = '.tmp';

const FORMAT = 'loop-tree-snapshot/1';

/** The manifest directory of a store. */
export const manifestDir = (storeDir: string): string => join(storeDir, 'snapshots');

/** A unique temporary name next to `path` (same directory: the rename is atomic). */
export const tempPath = (path: string): string => `${path}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`;

/**
 * Writes `snapshot` as `<storeDir>/snapshots/<name>.json`: to a temporary file in the same
 * directory, then renamed into place, so the name exists only once the manifest is complete (a
 * kill leaves the previous manifest or none, plus a temp file swept on the next open). The objects
 * it names must already be in the store: a manifest is written after its contents.
 */
export function writeManifest(fs: TreeSnapshotFs, storeDir: string, name: string, snapshot: TreeSnapshot): void {
  const dir = manifestDir(storeDir);
  if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.json`);
  const tmp = tempPath(path);
  const body = JSON.stringify({
    format: FORMAT,
    root: snapshot.root,
    takenAt: snapshot.takenAt,
    entries: [...snapshot.entries],
  });
  try {
    fs.writeFileSync(tmp, Buffer.from(body, 'utf8'));
    fs.renameSync(tmp, path);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

/**
 * Reads a manifest written by {@link writeManifest}; `undefined` when absent; throws with a reason when unreadable or
 * malformed.
 */
export function readManifest(fs: TreeSnapshotFs, storeDir: string, name: string): TreeSnapshot | undefined {
  const path = join(manifestDir(storeDir), `${name}.json`);
  if (!fs.existsSync(path)) return undefined;
  const parsed = JSON.parse(fs.readFileSync(path).toString('utf8')) as {
    format?: unknown;
    root?: unknown;
    takenAt?: unknown;
    entries?: unknown;
  };
  if (
    parsed.format !== FORMAT ||
    typeof parsed.root !== 'string' ||
    typeof parsed.takenAt !== 'number' ||
    !Array.isArray(parsed.entries)
  ) {
    throw new Error(`${path} is not a ${FORMAT} manifest`);
  }
  return { root: parsed.root, takenAt: parsed.takenAt, entries: new Map(parsed.entries as [string, TreeEntry][]) };
}

/** The saved snapshot names, sorted. */
export function listManifests(fs: TreeSnapshotFs, storeDir: string): string[] {
  const dir = manifestDir(storeDir);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -'.json'.length))
    .sort();
}

/**
 * Removes the temporary files a killed write left in the store (`objects/<xx>/*.tmp`,
 * `snapshots/*.tmp`). Returns how many it removed. Never touches a complete object or manifest.
 */
export function sweepTemps(fs: TreeSnapshotFs, storeDir: string): number {
  let removed = 0;
  const sweep = (dir: string) => {
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith(TEMP_SUFFIX)) continue;
      fs.rmSync(join(dir, name), { force: true });
      removed += 1;
    }
  };
  const objects = join(storeDir, 'objects');
  if (fs.existsSync(objects)) for (const sub of fs.readdirSync(objects)) sweep(join(objects, sub));
  if (fs.existsSync(manifestDir(storeDir))) sweep(manifestDir(storeDir));
  return removed;
}

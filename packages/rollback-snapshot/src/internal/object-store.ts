import { createHash, randomBytes } from 'node:crypto';
import type { TreeSnapshotFs } from '../tree-snapshot-fs.js';
import { join } from 'node:path';

/** SHA-256 of `bytes`, hex. */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * A content-addressed store of file contents: `<dir>/objects/<h[0:2]>/<h>` for SHA-256 `h`. An
 * object is written once (temp file + rename, so it is either absent or complete) and never
 * changed; storing bytes already present costs one `stat`.
 */
export interface ObjectStore {
  /** Stores `bytes` (when absent) and returns their hash. */
  readonly put: (bytes: Uint8Array) => string;
  /** The bytes of object `hash`, verified: `undefined` when absent or when its content no longer hashes to `hash`. */
  readonly get: (hash: string) => Buffer | undefined;
  /** True when object `hash` exists (complete: objects appear only by rename). */
  readonly has: (hash: string) => boolean;
}

/** Opens (creating on first write) the object store under `dir`. */
export function openObjectStore(dir: string, fs: TreeSnapshotFs): ObjectStore {
  const pathOf = (hash: string) => join(dir, 'objects', hash.slice(0, 2), hash);
  const madeDirs = new Set<string>();
  return {
    put: (bytes) => {
      const hash = sha256(bytes);
      const path = pathOf(hash);
      if (fs.existsSync(path)) return hash;
      const sub = join(dir, 'objects', hash.slice(0, 2));
      if (!madeDirs.has(sub)) {
        fs.mkdirSync(sub, { recursive: true });
        madeDirs.add(sub);
      }
      const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`; // swept on open when a kill leaves it
      try {
        fs.writeFileSync(tmp, bytes);
        fs.renameSync(tmp, path);
      } catch (error) {
        fs.rmSync(tmp, { force: true });
        throw error;
      }
      return hash;
    },
    has: (hash) => fs.existsSync(pathOf(hash)),
    get: (hash) => {
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(pathOf(hash));
      } catch {
        return undefined;
      }
      return sha256(bytes) === hash ? bytes : undefined;
    },
  };
}

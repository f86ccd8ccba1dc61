import type { Hash } from 'node:crypto';
import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { lstat, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Feeds a directory tree's metadata into `hash` cheaply: for every entry (sorted by name, not
 * following symlinks inside) its relative path, type, size, mtime (ms), mode and, for a symlink,
 * its target text. No file is read, so `node_modules` with tens of thousands of files costs one
 * `lstat` each. A listed path that is itself a symlink records its target and is then walked
 * through it, so replacing a `node_modules` link with a shim directory, re-pointing it, or
 * editing a file inside it (size or mtime change) all change the hash.
 *
 * What it does not see: a same-size rewrite that restores the mtime (`touch -d`); use
 * `fingerprintFiles` for the files whose bytes define the evaluation.
 *
 * @param root - the absolute base; `rel` the listed path relative to it.
 */
export async function hashTreeStats(hash: Hash, root: string, rel: string): Promise<void> {
  const abs = join(root, rel);
  let info;
  try {
    info = await lstat(abs);
  } catch {
    hash.update(`${rel}\0<missing>\0`);
    return;
  }
  if (info.isSymbolicLink()) {
    hash.update(`${rel}\0link\0${await readlink(abs)}\0`);
    try {
      info = await stat(abs);
    } catch {
      hash.update('<dangling>\0');
      return;
    }
  }
  walk(hash, abs, rel, info);
}

type Stats = ReturnType<typeof lstatSync>;

// Synchronous on purpose: one lstat per entry through the promise API costs ~50 us (1.2 s for a
// pnpm node_modules of 22,500 entries), the sync calls ~5 us; the walk blocks the main thread
// for that long between two runs, never during one (bench/metric-extraction.bench.ts).
function walk(hash: Hash, abs: string, rel: string, info: NonNullable<Stats>): void {
  const type = info.isDirectory() ? 'd' : info.isSymbolicLink() ? 'l' : info.isFile() ? 'f' : 'o';
  hash.update(`${rel}\0${type}\0${info.mode}\0${type === 'd' ? 0 : info.size}\0${type === 'd' ? 0 : info.mtimeMs}\0`);
  if (type === 'l') {
    let target = '';
    try {
      target = readlinkSync(abs);
    } catch {
      // vanished meanwhile
    }
    hash.update(`${target}\0`);
    return;
  }
  if (type !== 'd') return;
  let names: string[];
  try {
    names = readdirSync(abs).sort();
  } catch {
    hash.update('<unreadable>\0');
    return;
  }
  for (const name of names) {
    const path = join(abs, name);
    let child: Stats | undefined;
    try {
      child = lstatSync(path);
    } catch {
      child = undefined;
    }
    if (child === undefined) hash.update(`${rel}/${name}\0<vanished>\0`);
    else walk(hash, path, `${rel}/${name}`, child);
  }
}

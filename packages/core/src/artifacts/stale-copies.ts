import { createHash } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The part of a working copy's directory name that says whose it is: the main workspace (a hash
 * of its path) and the process that made it, so a later run can tell its own leftovers from
 * another run's live copies: `loop-copy-<iteration>.<k>-<owner>-XXXXXX`.
 */
export function copyOwner(root: string, pid = process.pid): string {
  return `${rootHash(root)}.${pid}`;
}

const rootHash = (root: string) => createHash('sha256').update(root).digest('hex').slice(0, 8);

/** True while process `pid` exists (a process of another user counts: EPERM). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the working copies a killed run of `root` left under `parent` (its process is gone: a
 * kill -9 skips every `dispose`). A copy of another workspace, or of a process still running, is
 * left alone; a failure to list or remove is ignored (the copies are temporary files).
 *
 * @returns the directories removed
 */
export async function removeStaleCopies(parent: string, root: string): Promise<string[]> {
  const hash = rootHash(root);
  const names = await readdir(parent).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const m = /^loop-copy-\d+\.\d+-([0-9a-f]{8})\.(\d+)-/.exec(name);
    if (!m || m[1] !== hash || alive(Number(m[2]))) continue;
    await rm(join(parent, name), { recursive: true, force: true }).then(
      () => removed.push(join(parent, name)),
      () => undefined,
    );
  }
  return removed;
}

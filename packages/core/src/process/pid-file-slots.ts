import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { killOrphanGroup } from './orphan-group.js';

/** Pid-file paths held by a run of this process that has not ended yet. */
const held = new Set<string>();

/** The slot paths of `pidFile`: the path itself, then `<pidFile>.1`, `<pidFile>.2`, ... */
const slotPath = (pidFile: string, n: number): string => (n === 0 ? pidFile : `${pidFile}.${n}`);

/**
 * Takes a pid-file slot for one run and ends the orphans of the free slots first (issue 15: a
 * harness option reused across working copies, one shared `pidFile`, let one candidate's orphan
 * sweep kill a live sibling). Concurrent runs of this process that name the same `pidFile` get
 * their own file each: the first free one of `pidFile`, `pidFile.1`, `pidFile.2`, ... A slot held
 * by a live run of this process is never swept; every other slot file (`pidFile` and its numbered
 * siblings) is an orphan of a controller that died, and {@link killOrphanGroup} ends it
 * (token-checked) before the run starts. Call the returned `release` when the run has ended.
 *
 * @param graceMs SIGTERM to SIGKILL grace of the sweep, milliseconds.
 * @returns the pid file this run writes, and `release`, which frees the slot (idempotent).
 */
export async function claimPidFileSlot(
  pidFile: string,
  graceMs: number,
): Promise<{ path: string; release: () => void }> {
  let n = 0;
  while (held.has(slotPath(pidFile, n))) n += 1;
  const path = slotPath(pidFile, n);
  held.add(path); // synchronously after the search: a sibling starting now takes the next slot
  const prefix = `${basename(pidFile)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(pidFile)); // synchronous: one small listing per run (issue 31)
  } catch {
    names = [];
  }
  const numbered = names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => join(dirname(pidFile), name));
  const free = [pidFile, ...numbered].filter((p) => p === path || !held.has(p));
  // Only a slot file that exists can name an orphan (the usual run finds none and waits for nothing).
  // Before the log is truncated: an orphan writes to it.
  await Promise.all(free.filter((p) => existsSync(p)).map((p) => killOrphanGroup(p, graceMs)));
  let released = false;
  return {
    path,
    release: () => {
      if (released) return;
      released = true;
      held.delete(path);
    },
  };
}

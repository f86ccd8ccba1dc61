import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RUN_FILES } from '@loop/auto-iterate';
import { killOrphanGroup } from '@loop/core/process';

/**
 * Ends the runs recorded by `pidFiles` (core's token-checked `killOrphanGroup`, in parallel): the ids of the groups
 * that were still running.
 */
export async function endGroups(pidFiles: readonly string[], graceMs: number): Promise<number[]> {
  const ended = await Promise.all(pidFiles.map((f) => killOrphanGroup(f, graceMs)));
  return ended.filter((g): g is number => g !== null);
}

/**
 * Every pid file of the run command: `.loop/run.pgid` and the slots of overlapping parallel runs (`run.pgid.1`, ...).
 */
export function runPidFiles(dir: string): string[] {
  const main = join(dir, RUN_FILES.runPid);
  const names = (() => {
    try {
      return readdirSync(dirname(main));
    } catch {
      return [];
    }
  })();
  return [
    main,
    ...names
      .filter((n) => n.startsWith(`${basename(main)}.`) && /^\d+$/.test(n.slice(basename(main).length + 1)))
      .map((n) => join(dirname(main), n)),
  ];
}

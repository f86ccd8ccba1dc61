import { existsSync, readFileSync } from 'node:fs';
import { pidsWithToken } from '@loop/core/process';

/** What an interrupted `loop` left running: one pid file's run command, still alive. */
export interface LeftoverRun {
  /** The pid file (`.loop/run.pgid`, `.loop/agent.pgid`, ...) that records it. */
  readonly pidFile: string;
  /** The recorded process group id. */
  readonly pgid: number;
  /** Every live process of the run: those whose environment carries the run's token (Linux), else the group leader. */
  readonly pids: readonly number[];
}

/** True when process group `pgid` has a member. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Reads what is still running of the runs recorded in `pidFiles` (`{ pgid, token }`, written by
 * core's command harness and agent proposer), without touching it: the processes whose
 * environment carries the run's token (`LOOP_RUN_TOKEN`/`LOOP_RUN_TOKENS`, read from
 * `/proc/<pid>/environ`, so a `setsid` daemon counts too), or, where there is no /proc, the group
 * leader while the group lives (core's `pidsWithToken`, the scan its own sweep uses). Core's own sweep ends them
 * (token-checked) before the next run or
 * agent call; `loop resume` calls this first (holding the workspace lock), only to say so. Missing or unreadable files
 * are
 * skipped.
 */
export function findLeftoverRuns(pidFiles: readonly string[]): LeftoverRun[] {
  const runs: LeftoverRun[] = [];
  const proc = existsSync('/proc/self/environ');
  for (const pidFile of pidFiles) {
    let record: { pgid?: unknown; token?: unknown };
    try {
      record = JSON.parse(readFileSync(pidFile, 'utf8')) as typeof record;
    } catch {
      continue;
    }
    const { pgid, token } = record;
    if (typeof pgid !== 'number' || typeof token !== 'string' || token.length < 4) continue;
    const pids = proc ? pidsWithToken(token).sort((a, b) => a - b) : groupAlive(pgid) ? [pgid] : [];
    if (pids.length > 0) runs.push({ pidFile, pgid, pids });
  }
  return runs;
}

/**
 * The one line `loop run`/`loop resume` prints before core's sweep ends them: how many leftover processes, and their
 * pids; `undefined` for none.
 */
export function describeLeftovers(runs: readonly LeftoverRun[]): string | undefined {
  const pids = [...new Set(runs.flatMap((r) => r.pids))].sort((a, b) => a - b);
  if (pids.length === 0) return undefined;
  const one = pids.length === 1;
  return (
    `ending ${pids.length} leftover process${one ? '' : 'es'} of the ` +
    `interrupted run (pid${one ? '' : 's'} ${pids.join(', ')})`
  );
}

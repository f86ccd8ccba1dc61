import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a command harness keeps each run's log (issue 32 item 16): the main workspace's log file
 * holds one run at a time (it is truncated at each run, seed 003) and a working copy's log goes
 * with the copy, so each finished run's log is also copied to `<dir>/<iteration>.log`
 * (`<iteration>.r<repeat>.log` for a re-run of the same state), and only the newest `count` are kept.
 */
export interface KeepLogsOptions {
  /** Absolute directory of the kept logs, e.g. `<workspace>/.loop/logs`. Created when missing. */
  readonly dir: string;
  /** How many logs to keep (the highest iterations win; 0 keeps none). */
  readonly count: number;
}

/** One kept log: its file name in {@link KeepLogsOptions.dir}, the iteration and the repeat (0 for the first run). */
export interface KeptLog {
  readonly name: string;
  readonly iteration: number;
  readonly repeat: number;
}

const KEPT_LOG = /^(\d+)(?:\.r(\d+))?\.log$/;

/** The file name of iteration `iteration`'s log (`repeat` > 0: a re-run of the same state): `12.log`, `12.r1.log`. */
export function keptLogName(iteration: number, repeat = 0): string {
  return repeat > 0 ? `${iteration}.r${repeat}.log` : `${iteration}.log`;
}

/**
 * The kept logs in `dir`, oldest first (by iteration, then repeat); `[]` when `dir` does not exist. Other files are
 * ignored.
 */
export async function listKeptLogs(dir: string): Promise<KeptLog[]> {
  return listKeptLogsSync(dir);
}

function listKeptLogsSync(dir: string): KeptLog[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    names = [];
  }
  const logs: KeptLog[] = [];
  for (const name of names) {
    const m = KEPT_LOG.exec(name);
    if (m) logs.push({ name, iteration: Number(m[1]), repeat: m[2] === undefined ? 0 : Number(m[2]) });
  }
  return logs.sort((a, b) => a.iteration - b.iteration || a.repeat - b.repeat);
}

/**
 * Copies a finished run's log to `<dir>/<keptLogName(iteration, repeat)>` (temp file + rename, so
 * a reader never sees half a log; an earlier attempt of the same iteration, e.g. before a crash
 * repair, is replaced), then removes the oldest kept logs beyond `count`. Overlapping runs (working
 * copies) may call it at once: each writes its own name and a removal of a file already gone is fine.
 *
 * @throws the fs error when the log cannot be copied (the caller decides whether that matters).
 */
export async function keepRunLog(
  logPath: string,
  options: KeepLogsOptions,
  iteration: number,
  repeat = 0,
): Promise<void> {
  // Synchronous node:fs (issue 31): a handful of small metadata calls, each an event-loop round
  // trip through the thread pool when asynchronous (about 0.5 ms per run on an instant harness).
  if (options.count <= 0) return;
  mkdirSync(options.dir, { recursive: true });
  const target = join(options.dir, keptLogName(iteration, repeat));
  const temp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    copyFileSync(logPath, temp);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  const logs = listKeptLogsSync(options.dir);
  const excess = logs.slice(0, Math.max(0, logs.length - options.count));
  for (const l of excess) rmSync(join(options.dir, l.name), { force: true });
}

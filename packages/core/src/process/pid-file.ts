import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The environment variable that tags every process a run's command starts (its own token). */
export const RUN_TOKEN_ENV = 'LOOP_RUN_TOKEN';

/**
 * The environment variable holding the space-separated tokens of every enclosing run, innermost
 * last (a loop run inside another loop's command keeps the outer token, so the outer clean-up
 * finds the inner run's processes too).
 */
export const RUN_TOKENS_ENV = 'LOOP_RUN_TOKENS';

/** A fresh token for {@link RUN_TOKEN_ENV}: 16 hex digits. */
export const newRunToken = (): string => randomBytes(8).toString('hex');

/** What a pid file records about a running command. */
export interface PidFileRecord {
  /** The process group id (= the leader's pid). */
  pgid: number;
  /** The run token in the command's environment. */
  token: string;
  /** The run's cgroup v2 directory, when one was made. */
  cgroup?: string;
}

/**
 * Writes `{ pgid, token, cgroup? }` to the pid file (synchronously: it must exist before anything
 * else runs). Best effort: a pid file that cannot be written only loses the orphan clean-up, never
 * the run.
 */
export function writePidFile(path: string, pgid: number, token: string, cgroup?: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const record: PidFileRecord = { pgid, token, ...(cgroup ? { cgroup } : {}) };
    writeFileSync(path, `${JSON.stringify(record)}\n`);
  } catch {
    // see above
  }
}

/** Removes the pid file (missing is fine). */
export function removePidFile(path: string): void {
  rmSync(path, { force: true });
}

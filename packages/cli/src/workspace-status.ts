import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAutoIterateTsv, REJECTED_PREFIX, RUN_FILES, toAutoIterateStatus } from '@loop/auto-iterate';
import { type IterationRecord } from '@loop/core';
import { isLocked, readJson } from '@loop/core/files';
import { gitDirOf } from '@loop/rollback-git/git';
import { readCliState } from './run-tag.js';
import { readSpendLine } from './spend-line.js';

/** The fields of `.loop/state.json` that `loop status` shows (written by the core engine). */
export interface RunStateFile {
  /** `running`, `stopped` or `failed`. */
  status?: string;
  /** The last completed iteration (0 is the baseline). */
  iteration?: number;
  /** `minimize` or `maximize`. */
  direction?: string;
  /** The baseline score. */
  baseline?: number;
  /** The best kept score. */
  best?: number;
  /** The id (commit) of the best kept state. */
  bestId?: string;
  /** Counts per status, baseline excluded. */
  counts?: { kept?: number; reverted?: number; rejected?: number; crash?: number };
  /** Why the run stopped (when stopped). */
  stopReason?: string;
  /** The stop message. */
  stopMessage?: string;
  /** The error (when failed). */
  error?: { code?: string; message?: string };
  /** Last write, ISO time. */
  updatedAt?: string;
}

/** Where a run stands, as `loop status` reports it. */
export interface WorkspaceStatus {
  /** The workspace. */
  readonly dir: string;
  /** The run tag recorded by `loop run`, if any. */
  readonly tag: string | undefined;
  /** `.loop/state.json`, or `undefined` when there is none. */
  readonly state: RunStateFile | undefined;
  /** The rows of results.tsv (empty when there is none). */
  readonly rows: readonly IterationRecord[];
  /** True when a live process holds the workspace lock. */
  readonly locked: boolean;
  /** What the agent proposer's rows cost (see `readSpendLine`), when they reported it. @default none */
  readonly spent?: string;
}

/**
 * The workspace lock's path for the workspace `dir`: `<git dir>/loop-workspace` (the lock is the
 * directory `<path>.lock`), as `createAutoIterate` takes it; `isLocked` (`@loop/core/files`) says
 * whether a live run holds it.
 */
export function lockPath(dir: string): string {
  return join(gitDirOf(dir), 'loop-workspace');
}

/**
 * Reads where the run in `dir` stands: state.json, results.tsv and whether the lock is held.
 *
 * @throws {LoopError} `STATE_CORRUPT` or `RESULTS_CORRUPT` naming the file when it cannot be parsed.
 */
export async function readStatus(dir: string): Promise<WorkspaceStatus> {
  const state = (await readJson(join(dir, RUN_FILES.state))) as RunStateFile | undefined;
  const cli = readCliState(dir);
  // A target's run keeps results.tsv in the target's folder; .loop/cli.json says where.
  const resultsPath = join(dir, cli.results ?? RUN_FILES.results);
  const text = await readFile(resultsPath, 'utf8').catch(() => undefined);
  const rows = text === undefined ? [] : parseAutoIterateTsv(text, resultsPath);
  const locked = await isLocked(lockPath(dir)).catch(() => false);
  const spent = await readSpendLine(dir).catch(() => undefined);
  // Before its baseline is in a run has no cli.json yet, but its branch is checked out.
  const tag = cli.tag ?? (state || rows.length > 0 ? undefined : await checkedOutRunTag(dir));
  return {
    dir,
    tag,
    state,
    rows,
    locked,
    ...(spent ? { spent } : {}),
  };
}

/** The tag of the `auto-iterate/<tag>` branch checked out in `dir` (read from git's HEAD file), if any. */
async function checkedOutRunTag(dir: string): Promise<string | undefined> {
  const head = await readFile(join(gitDirOf(dir), 'HEAD'), 'utf8').catch(() => '');
  return /^ref: refs\/heads\/auto-iterate\/(\S+)/.exec(head)?.[1];
}

/** Decimals of every score `loop status` prints, so the columns line up. */
const STATUS_SCORE_DECIMALS = 6;

function fmt(x: number | undefined | null): string {
  return x === undefined || x === null ? '-' : x.toFixed(STATUS_SCORE_DECIMALS);
}

/** The last rows as aligned columns: iteration and score right-aligned, commit and status padded. */
function formatRows(rows: readonly IterationRecord[]): string[] {
  const cells = rows.map((r) => [
    String(r.iteration),
    r.candidateId.slice(0, 7) || '-',
    r.score === null ? (r.status === 'crash' ? 'crash' : '-') : fmt(r.score),
    toAutoIterateStatus(r.status),
    (r.status === 'rejected' && !r.description.startsWith(REJECTED_PREFIX) ? REJECTED_PREFIX : '') +
      r.description.replace(/[\t\r\n]+/g, ' '),
  ]);
  const width = (i: number) => Math.max(...cells.map((c) => c[i]!.length));
  const [wi, wc, ws, wt] = [width(0), width(1), width(2), width(3)];
  return cells.map(([it, commit, score, status, desc]) =>
    (
      `  ${it!.padStart(Math.max(4, wi))}  ${commit!.padEnd(wc)} ` +
      ` ${score!.padStart(ws)}  ${status!.padEnd(wt)}  ${desc}`
    ).trimEnd(),
  );
}

/** `loop status` as text: the run, iteration, best, counts, stop reason, lock, and the last `last` rows. */
export function formatStatus(status: WorkspaceStatus, last = 5): string {
  const { state, rows } = status;
  const lines = [`workspace ${status.dir}${status.tag ? `  (branch auto-iterate/${status.tag})` : ''}`];
  if (!state && rows.length === 0 && status.tag && !status.locked) {
    lines.push('a run was started on this branch but recorded no row (stopped before its baseline was in);');
    lines.push('"loop resume" continues it on this branch ("loop run" would start another)');
    lines.push('lock      free');
    return lines.join('\n');
  }
  if (!state && rows.length === 0) {
    lines.push('no run here yet (no .loop/state.json, no results.tsv); start one with "loop run"');
    lines.push(`lock      ${status.locked ? 'held by a running loop' : 'free'}`);
    return lines.join('\n');
  }
  const iteration = state?.iteration ?? rows.length - 1;
  const lockNote = status.locked
    ? ''
    : state?.status === 'running'
      ? ' (but no process holds the lock: interrupted, or an MCP server exited with a trial open; ' +
        '"loop resume" or the next loop_evaluate continues it)'
      : '';
  lines.push(`status    ${state?.status ?? 'unknown (no state.json)'}${lockNote}`);
  lines.push(`iteration ${iteration}`);
  const direction =
    state?.direction === 'maximize' ? 'higher is better' : state?.direction === 'minimize' ? 'lower is better' : '';
  if (state?.best !== undefined)
    lines.push(
      `best      ${fmt(state.best)} at ${(state.bestId ?? '').slice(0, 7)} ` +
        `(baseline ${fmt(state.baseline)}${direction ? `, ${direction}` : ''})`,
    );
  const c = state?.counts;
  const counts = c
    ? { keep: c.kept ?? 0, discard: (c.reverted ?? 0) + (c.rejected ?? 0), crash: c.crash ?? 0 }
    : {
        keep: rows.filter((r) => r.status === 'kept').length,
        discard: rows.filter((r) => r.status === 'reverted' || r.status === 'rejected').length,
        crash: rows.filter((r) => r.status === 'crash' && r.iteration > 0).length,
      };
  lines.push(`counts    keep ${counts.keep}  discard ${counts.discard}  crash ${counts.crash}`);
  if (status.spent) lines.push(`cost      ${status.spent}`);
  if (state?.stopReason)
    lines.push(`stopped   ${state.stopReason}${state.stopMessage ? ` (${state.stopMessage})` : ''}`);
  if (state?.error) lines.push(`error     ${state.error.code ?? ''} ${state.error.message ?? ''}`.trimEnd());
  lines.push(`lock      ${status.locked ? 'held by a running loop' : 'free'}`);
  if (state?.updatedAt) lines.push(`updated   ${state.updatedAt}`);
  if (rows.length > 0) {
    lines.push(`last ${Math.min(last, rows.length)} of ${rows.length} rows (results.tsv):`);
    lines.push(...formatRows(rows.slice(-last)));
  }
  return lines.join('\n');
}

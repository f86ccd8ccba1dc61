import { readdir, readFile } from 'node:fs/promises';
import { isLocked } from '@loop/core/files';
import { readRunState, resolveColliePaths, type RunState } from '@loop/collie';
import type { LoadedCollieConfig } from './load.js';

/** Where a collie project stands, read from its files (no lock taken). */
export interface CollieStatus {
  /** The config file. */
  readonly config: string;
  /** `<stateRoot>/autoiter/<projectId>`. */
  readonly stateDir: string;
  /** The active run (`current-run`), else the newest run directory, else null. */
  readonly runId: string | null;
  /** True when `current-run` names the run (it is removed when the run ends). */
  readonly active: boolean;
  /** True when a live controller holds `controller.lock`. */
  readonly locked: boolean;
  /** The run's directory, or null. */
  readonly runDir: string | null;
  /**
   * state.json's `status` (running, iter_done, converged, budget_exhausted, escalated), or null before Stage 0's
   * restart.
   */
  readonly status: RunState['status'] | null;
  /** state.json's `iter`. */
  readonly iteration: number | null;
  /** The stage a running iteration resumes at. */
  readonly stage: RunState['stage'] | null;
  /** Why the run stopped (SC1-SC5, an escalation reason), or null. */
  readonly stopReason: string | null;
  /** Tokens used by agents so far (SC4). */
  readonly tokensUsed: number | null;
  /** The last scalar and the baseline. */
  readonly lastScalar: number | null;
  readonly baselineScalar: number | null;
  /** The last non-empty line of status.md, or null. */
  readonly statusLine: string | null;
}

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;

/**
 * Reads where the collie project of a loaded config stands: `current-run` (else the newest run
 * directory), its state.json, the last line of status.md and whether a controller holds the lock.
 *
 * @throws {LoopError} `STATE_CORRUPT` when state.json is malformed.
 */
export async function readCollieStatus(loaded: LoadedCollieConfig): Promise<CollieStatus> {
  const paths = resolveColliePaths(loaded.stateRoot, loaded.config.projectId, loaded.config.sessionId);
  const current = (await readFile(paths.currentRun, 'utf8').catch(() => '')).trim();
  const runs = (await readdir(paths.projectDir).catch(() => [] as string[])).filter((n) => RUN_ID.test(n)).sort();
  const runId = current || runs.at(-1) || null;
  const locked = await isLocked(paths.lock).catch(() => false);
  const rp = runId ? paths.run(runId) : null;
  const state = rp ? await readRunState(rp.state) : undefined;
  const statusText = rp ? await readFile(rp.status, 'utf8').catch(() => '') : '';
  const statusLine =
    statusText
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? null;
  return {
    config: loaded.file,
    stateDir: paths.projectDir,
    runId,
    active: current !== '',
    locked,
    runDir: rp?.dir ?? null,
    status: state?.status ?? null,
    iteration: state?.iter ?? null,
    stage: state?.stage ?? null,
    stopReason: state?.stop_reason ?? null,
    tokensUsed: state?.tokens_used ?? null,
    lastScalar: state?.last_scalar ?? null,
    baselineScalar: state?.baseline_scalar ?? null,
    statusLine,
  };
}

/** `loop collie status` as text. */
export function formatCollieStatus(s: CollieStatus): string {
  const lines = [`state dir ${s.stateDir}`];
  if (!s.runId) {
    lines.push('no run yet; start one with "loop collie step" (one unit) or "loop collie run" (to the end)');
  } else {
    lines.push(`run       ${s.runId}${s.active ? '' : ' (ended: current-run removed)'}`);
    lines.push(
      `status    ${s.status ?? 'not started (Stage 0 done; the next step writes run-spec.md and state.json)'}`,
    );
    if (s.iteration !== null)
      lines.push(`iteration ${s.iteration}${s.status === 'running' && s.stage ? `  stage ${s.stage}` : ''}`);
    if (s.stopReason) lines.push(`stopped   ${s.stopReason}`);
    if (s.tokensUsed !== null) lines.push(`tokens    ${s.tokensUsed}`);
    if (s.baselineScalar !== null || s.lastScalar !== null)
      lines.push(`scalar    ${s.lastScalar ?? '-'} (baseline ${s.baselineScalar ?? '-'})`);
    if (s.statusLine) lines.push(`status.md ${s.statusLine}`);
  }
  lines.push(`lock      ${s.locked ? 'held by a running controller' : 'free'}`);
  return lines.join('\n');
}

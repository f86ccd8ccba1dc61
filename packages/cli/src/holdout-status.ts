import { existsSync } from 'node:fs';
import { holdoutStateDir, readHoldoutUses, type HoldoutUse } from '@loop/core/policies';
import { holdoutPath, type HoldoutConfig } from './holdout-config.js';

/**
 * The sealed holdout's scores as `loop status`, `loop report` and the dashboard show them to the
 * user (issue 33). Never part of `readStatus` (the MCP server's `loop_status` reply, which an
 * agent reads): read from the holdout's state folder, outside the workspace.
 */
export interface HoldoutStatus {
  /** The state folder read. */
  readonly stateDir: string;
  /** Every use recorded there for this workspace (all runs), oldest first. */
  readonly uses: readonly HoldoutUse[];
}

/** The holdout state folder of a workspace: the config's `holdout.stateDir`, else the default one. */
export function holdoutStateDirOf(dir: string, holdout: HoldoutConfig | undefined): string {
  return holdout?.stateDir !== undefined ? holdoutPath(dir, holdout.stateDir) : holdoutStateDir(dir);
}

/** Reads the holdout uses of `dir`; `undefined` when there is no holdout config and no state folder. */
export async function readHoldoutStatus(
  dir: string,
  holdout: HoldoutConfig | undefined,
): Promise<HoldoutStatus | undefined> {
  const stateDir = holdoutStateDirOf(dir, holdout);
  if (!holdout && !existsSync(stateDir)) return undefined;
  return { stateDir, uses: await readHoldoutUses(stateDir) };
}

const fmt = (x: number | undefined): string => (x === undefined ? '-' : x.toFixed(6));

/** The overfitting gap of a use: holdout minus visible (`undefined` without both). */
export function holdoutGap(u: HoldoutUse): number | undefined {
  return u.score !== undefined && u.visible !== undefined ? u.score - u.visible : undefined;
}

/** `loop status`'s holdout lines: the last final score with its gap, the gate's count, the last uses. */
export function formatHoldoutStatus(s: HoldoutStatus, last = 5): string {
  const lines = [`holdout   sealed scores in ${s.stateDir} (outside the workspace; the agent never sees them)`];
  if (s.uses.length === 0)
    return [...lines, '  no holdout use yet (scored when a run stops, or by "loop holdout")'].join('\n');
  const run = s.uses.at(-1)!.run;
  const ofRun = s.uses.filter((u) => u.run === run);
  const final = ofRun.findLast((u) => u.kind === 'final' || u.kind === 'on-demand');
  if (final) {
    const where = `iteration ${final.iteration}${final.id ? ` (${final.id.slice(0, 7)})` : ''}`;
    const score = final.score === undefined ? `crashed: ${final.error ?? '?'}` : fmt(final.score);
    lines.push(
      `  ${final.kind === 'final' ? 'final' : 'latest'}   ${where}: ` +
        `holdout ${score}  visible ${fmt(final.visible)}  ` +
        `gap ${fmt(holdoutGap(final))}`,
    );
  }
  const gate = ofRun.filter((u) => u.kind === 'gate' || u.kind === 'gate-incumbent');
  if (gate.length > 0) {
    const budget = gate.at(-1)!.gateBudget;
    lines.push(
      `  gate    ${gate.length} of ${budget ?? '?'} uses; ${gate.filter((u) => u.blocked).length} keep(s) kept back`,
    );
  }
  lines.push(`  uses of run ${run} (${ofRun.length}; last ${Math.min(last, ofRun.length)}):`);
  for (const u of ofRun.slice(-last)) {
    const verdict = u.blocked === undefined ? '' : u.blocked ? '  kept back' : '  passed';
    lines.push(
      `  ${String(u.use).padStart(4)}  ${u.kind.padEnd(14)}  ` +
        `it ${String(u.iteration).padStart(3)}  holdout ${fmt(u.score)}  ` +
        `visible ${fmt(u.visible)}${verdict}`,
    );
  }
  return lines.join('\n');
}

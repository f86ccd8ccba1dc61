import { LoopError, type IterationRecord, type ResultsLog } from '@loop/core';
import { appendDurable } from '@loop/core/files';
import type { IterationFacts } from './collie-stop-state.js';
import { readText } from './internal/read-text.js';
import { decideRollback, type PrimaryGoal } from './rollback-matrix.js';
import type { FixKind } from './records.js';
import type { TriggerFacts } from './controller/trigger-harness.js';

/** A FIX Stage 5.1 committed, as the row carries it. */
export interface RowFix {
  readonly id: string;
  readonly kind: FixKind;
}

/** What Stage 5.3 tells the engine about the iteration (`data.collie` of its row). */
export interface CollieCandidate {
  /** Collie's iteration (the engine numbers its rows itself). */
  readonly iter: number;
  /** state.json `last_scalar` (or the baseline's) before the rerun: the matrix's delta is taken against it. */
  readonly before: number | null;
  /** Distinct files of the Stage 5.1 branch diff. */
  readonly filesChanged: number | null;
  /** The FIXes Stage 5.1 committed, in order. */
  readonly fixes: readonly RowFix[];
}

/** What collie's keep policy decided (`data.matrix` of a scored row). */
export interface MatrixDecision {
  /** The rollback matrix row that applied. */
  readonly row: string;
  /** FIX ids the matrix reverts (the whole iteration is never reverted by the matrix). */
  readonly revert: readonly string[];
  /** `<policy>: <reason>` when the user's keep policy said no. */
  readonly why?: string;
}

/** What Stage 6 does for a row: the rollback_log row, the FIXes to revert, why all, and a halt. */
export interface RowRollback {
  readonly row: string;
  readonly revert: readonly string[];
  /** `<policy or guard>: <reason>` when a user policy reverted the whole iteration, else null. */
  readonly why: string | null;
  /** An `afterScore` halt: the run stops `escalated` with this reason. */
  readonly halt: string | null;
}

/** The collie facts of a row written by Stage 5.3. */
export function candidateOf(row: IterationRecord): CollieCandidate | undefined {
  return row.data?.collie as CollieCandidate | undefined;
}

/**
 * What a row asks Stage 6 to do (seed 000's rollback matrix; a user policy can only revert more):
 * `kept` → the matrix's per-FIX reverts (`data.matrix`); `crash` (no scalar) → the matrix with a
 * flat delta, keep all; `reverted` (the user's keep policy, or an `afterScore` reject) and `halted`
 * (an `afterScore` halt) → revert every FIX, row `<matrix row> · <why> · revert all`.
 */
export function rollbackOf(row: IterationRecord, goal: PrimaryGoal): RowRollback {
  const fixes = candidateOf(row)?.fixes ?? [];
  const matrix: MatrixDecision = (row.data?.matrix as MatrixDecision | undefined) ?? decideRollback(goal, null, fixes);
  if (row.status === 'kept') return { row: matrix.row, revert: matrix.revert, why: null, halt: null };
  if (row.status === 'crash') return { row: matrix.row, revert: [], why: null, halt: null };
  const why = matrix.why ?? row.note ?? row.status;
  const halt = row.status === 'halted' ? why : null;
  return { row: `${matrix.row} · ${why} · revert all`, revert: fixes.map((f) => f.id), why, halt };
}

/** The SC facts of the iteration rows (baseline skipped), as state.json `iterations[]` would give them. */
export function factsOfRows(rows: readonly IterationRecord[], goal: PrimaryGoal): IterationFacts[] {
  return rows.flatMap((row) => {
    const c = candidateOf(row);
    if (row.status === 'baseline' || c === undefined) return [];
    const t = row.data?.trigger as TriggerFacts | undefined;
    const delta = row.score !== null && c.before !== null ? row.score - c.before : null;
    return [
      {
        iter: c.iter,
        scalar: row.score,
        delta,
        allGreen: t?.exitCode === 0,
        errorSignature: t?.errorSignature ?? null,
        filesChanged: c.filesChanged,
        reverted: rollbackOf(row, goal).revert.length > 0,
      },
    ];
  });
}

/**
 * The engine's results log of a collie run: `path` (loop-results.jsonl) holds one JSON row per
 * Stage 5.3 candidate, appended and fsynced before anything is reverted; the baseline row is
 * state.json's `baseline_scalar` (NaN when none was extracted: the engine resumes, never
 * re-measures). A torn last line (a kill mid-append) is dropped; it is rewritten when the step
 * is redone.
 *
 * @throws {LoopError} `RESULTS_CORRUPT` from `read` for an unreadable line before the last.
 */
export function createCollieResultsLog(path: string, baseline: number | null): ResultsLog {
  return {
    name: 'collie-rows',
    path,
    read: async () => {
      const lines = ((await readText(path)) ?? '').split('\n').filter((l) => l.trim() !== '');
      const rows: IterationRecord[] = [];
      for (const [i, line] of lines.entries()) {
        try {
          rows.push(JSON.parse(line) as IterationRecord);
        } catch (cause) {
          if (i === lines.length - 1) break;
          const message = `[loop] [collie] ${path} line ${i + 1} is not a JSON row; restore it or remove the run`;
          throw new LoopError('RESULTS_CORRUPT', message, { cause, details: { path } });
        }
      }
      const score = baseline ?? Number.NaN;
      const first: IterationRecord = {
        iteration: 0,
        candidateId: '',
        score,
        status: 'baseline',
        description: 'baseline',
      };
      return [first, ...rows];
    },
    append: (row) => appendDurable(path, `${JSON.stringify(row)}\n`),
  };
}

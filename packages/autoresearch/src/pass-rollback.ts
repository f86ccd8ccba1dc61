import { type SnapshotCheckpoint, type SnapshotRollback, type SnapshotStartReport } from '@loop/rollback-snapshot';
import { KEPT_DIR_PATTERN } from '@loop/rollback-snapshot/snapshot-names';

/** The pass's snapshot rollback as the engine's, with what the pass reads back from it. */
export interface PassRollback extends SnapshotRollback {
  /**
   * Takes the baseline snapshot once (seed 002 setup step 5, after the baseline was scored); later calls return the
   * first report.
   */
  readonly start: () => Promise<SnapshotStartReport>;
  /** The baseline directory's name (`''` before `start`). */
  readonly baselineId: () => string;
  /** The snapshot cell of iteration `iteration`'s row: its pre-edit copies' names, comma-separated (`''` for none). */
  readonly preEditCopies: (iteration: number) => string;
}

/** The iteration a kept directory's name starts with (`<NNN>-kept-...`), 0 for the baseline. */
export const iterationOfKeptId = (id: string): number => Number(KEPT_DIR_PATTERN.exec(id)?.[1] ?? 0);

/**
 * Seed 002's order on the engine's seams. The engine checkpoints iteration 0 before it scores the
 * baseline, but the seed scores the baseline THEN snapshots it (setup step 5; a baseline the
 * harness cannot score leaves no snapshot): so `checkpoint(0)` takes nothing and has no id, the
 * baseline snapshot is taken by `start()` (the pass calls it when row 0 is appended), and the
 * engine's empty best id means the baseline directory. On resume `recover` starts the rollback
 * first (reusing the complete baseline directory: no re-baseline), then `onRecovered` runs with
 * the incumbent restored (function mode re-measures its Tier-1 gates there, before the first stop
 * check). The snapshot cell of a row comes from the iteration's checkpoint (one is open at a time).
 */
export function passRollback(
  inner: SnapshotRollback,
  o: { onRecovered?: (id: string, iteration: number) => Promise<void> },
): PassRollback {
  let started: Promise<SnapshotStartReport> | undefined;
  let last: SnapshotCheckpoint | undefined;
  let report: SnapshotStartReport | undefined;
  const start = async () => (report = await (started ??= inner.start()));
  const baselineOf = () => report?.baselineId ?? '';
  const best = (id: string) => id || baselineOf();
  return {
    ...inner,
    start,
    baselineId: baselineOf,
    preEditCopies: (iteration) => (last?.iteration === iteration ? last.copies.map((c) => c.snapshot).join(',') : ''),
    checkpoint: async (iteration, plan) => {
      if (iteration === 0) return { iteration, id: '', copies: [], slug: 'baseline' };
      await start();
      last = await inner.checkpoint(iteration, plan);
      return last;
    },
    restoreBest: async (id) => inner.restoreBest(best(id)),
    recover: async (id) => {
      await start();
      await inner.recover(best(id));
      await o.onRecovered?.(best(id), iterationOfKeptId(best(id)));
    },
    currentId: () => (report ? inner.currentId() : ''),
  };
}

import { type Harness, type RunRecord } from '@loop/core';
import { readLogTail } from '@loop/core/harness';
import { appendText } from '../append-once.js';
import { monitorLog } from './monitor.js';

/** What a trigger run adds to its run record (`RunRecord.data.trigger`, then the row's `data.trigger`). */
export interface TriggerFacts {
  /**
   * The exit code collie records: a blocking kill is 143 unless the run exited non-zero itself; null: killed by a
   * signal.
   */
  readonly exitCode: number | null;
  /** The last log line with digits as `N` (null for exit 0); `exit <code>` when the log is empty. */
  readonly errorSignature: string | null;
  /** The log line a blocking pattern matched (the run was killed), or null. */
  readonly blockingLine: string | null;
}

/** Options of {@link createTriggerHarness}. */
export interface TriggerHarnessOptions {
  /** The log the inner harness writes (raw.log, rerun.log, recovery-N.log). */
  readonly logFile: string;
  /** Collie's iteration (the inner harness sees it as `RunContext.iteration`). */
  readonly iter: number;
  /** Regexes (source text) that kill the run when a log line matches; empty: no monitor. */
  readonly blockingPatterns: readonly string[];
  /** How often the monitor reads the log, ms. */
  readonly monitorIntervalMs: number;
  /** SIGTERM → SIGKILL grace of the inner harness, ms (named in the KILLED line). */
  readonly killGraceMs: number;
}

/**
 * The trigger as a core `Harness` (seed 000 Stage 2, 3.2 and 5.3): runs `inner` (the command
 * harness, or the `run.createHarness` option's), kills it when a blocking pattern appears in the log,
 * appends `BLOCKING:` / `KILLED:` lines and `EXIT_CODE:<n>` to the log, and puts
 * {@link TriggerFacts} into the record's `data.trigger`. The engine's abort signal also stops it.
 * The controller reads only the log's last 50 lines (seed 000 Section 0).
 */
export function createTriggerHarness(inner: Harness, o: TriggerHarnessOptions): Harness {
  return {
    name: `collie-trigger(${inner.name})`,
    run: async (context): Promise<RunRecord> => {
      const controller = new AbortController();
      const abort = () => controller.abort();
      context.signal.addEventListener('abort', abort);
      const patterns = o.blockingPatterns.map((p) => new RegExp(p));
      const watch =
        patterns.length > 0
          ? monitorLog({ path: o.logFile, patterns, intervalMs: o.monitorIntervalMs, onMatch: abort })
          : undefined;
      let record: RunRecord;
      try {
        record = await inner.run({ iteration: o.iter, signal: controller.signal });
      } finally {
        watch?.stop();
        context.signal.removeEventListener('abort', abort);
      }
      const blockingLine = watch?.matched() ?? null;
      if (blockingLine !== null) {
        const killed = `KILLED: trigger process group stopped (SIGTERM, SIGKILL after ${o.killGraceMs} ms)`;
        await appendText(o.logFile, `BLOCKING: ${blockingLine}\n${killed}\n`);
      }
      const killedExit = record.exitCode && record.exitCode !== 0 ? record.exitCode : 143;
      const exitCode = blockingLine !== null ? killedExit : record.exitCode;
      await appendText(o.logFile, `EXIT_CODE:${exitCode ?? (record.timedOut ? 124 : 137)}\n`);
      const lines = (await readLogTail(o.logFile, 50)).split('\n');
      const lastLine = lines.filter((l) => l.trim() !== '' && !/^(EXIT_CODE|KILLED):/.test(l)).at(-1) ?? '';
      const signature =
        lastLine
          .replace(/^BLOCKING: /, '')
          .replace(/\d+/g, 'N')
          .trim() || `exit ${exitCode}`;
      const errorSignature = exitCode === 0 ? null : signature;
      const trigger: TriggerFacts = { exitCode: exitCode ?? null, errorSignature, blockingLine };
      return { ...record, logPath: o.logFile, data: { ...record.data, trigger } };
    },
  };
}

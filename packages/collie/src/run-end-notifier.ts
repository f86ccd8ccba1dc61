import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MaybePromise } from '@loop/core';
import { runInGroup } from '@loop/core/process';

/** The seed's terminal events (how a run ended, or why it stopped for a human). */
export type RunEndEvent =
  'autoiter_done' | 'escalated' | 'budget_exhausted' | 'blocker_unrecoverable' | 'prepare_failed' | 'deadlock';

/** One terminal-event notice, as {@link RunEndNotifier.notify} gets it. */
export interface RunEndNotice {
  readonly event: RunEndEvent;
  readonly runId: string;
  /** Absolute path of status.md. */
  readonly statusFile: string;
}

/**
 * Tells the outside world how a run ended (seed 000 Observability §14 item 4: the terminal events
 * only). Called once per terminal event; must not throw. Not the CLI's `Notifier` (which runs a notify command
 * on the events of a `loop run`).
 */
export interface RunEndNotifier {
  readonly name: string;
  readonly notify: (n: RunEndNotice) => MaybePromise<void>;
}

/** Notifies nobody. */
export function noNotify(): RunEndNotifier {
  return { name: 'none', notify: () => {} };
}

/**
 * Runs `bash -c "$COLLIE_AUTOITER_NOTIFY_CMD"` with `COLLIE_AUTOITER_EVENT`, `COLLIE_AUTOITER_RUN_ID`
 * and `COLLIE_AUTOITER_STATUS_FILE` (seed 000 Observability §14 item 4). Output goes to
 * `<tmpdir>/collie-notify.log`; failures are swallowed (notification is best effort).
 */
export function createNotifyCommand(
  command: string,
  options: { timeoutMs?: number; logFile?: string } = {},
): RunEndNotifier {
  return {
    name: `notify(${command})`,
    notify: async (n) => {
      const handle = await open(options.logFile ?? join(tmpdir(), 'collie-notify.log'), 'a').catch(() => undefined);
      if (!handle) return;
      try {
        await runInGroup({
          command: 'bash -c "$COLLIE_AUTOITER_NOTIFY_CMD"',
          cwd: process.cwd(),
          env: {
            ...process.env,
            COLLIE_AUTOITER_NOTIFY_CMD: command,
            COLLIE_AUTOITER_EVENT: n.event,
            COLLIE_AUTOITER_RUN_ID: n.runId,
            COLLIE_AUTOITER_STATUS_FILE: n.statusFile,
          },
          outputFd: handle.fd,
          killTimeoutMs: options.timeoutMs ?? 30_000,
          graceMs: 1000,
        });
      } finally {
        await handle.close();
      }
    },
  };
}

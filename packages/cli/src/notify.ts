import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoopEvent } from '@loop/core';
import { describeExit, runInGroupToLog } from '@loop/core/process';
import { z } from 'zod';

/** The moments `notify.on` can name. */
export const NOTIFY_EVENTS = ['end', 'crash-streak', 'plateau'] as const;

/** One of {@link NOTIFY_EVENTS}. */
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** zod schema of the `notify:` block of a `loop run` config. */
export const notifySchema = z
  .object({
    command: z
      .string()
      .trim()
      .min(1, 'notify.command must not be empty')
      .describe(
        'A shell command (/bin/sh -c, in dir) run at each event: the message on ' +
          'stdin, LOOP_NOTIFY_EVENT, LOOP_NOTIFY_MESSAGE, LOOP_ITERATION and ' +
          'LOOP_BEST in its environment (e.g. a curl to a chat webhook, ' +
          'notify-send, mail).',
      ),
    on: z
      .array(z.enum(NOTIFY_EVENTS))
      .min(1)
      .default(['end', 'crash-streak', 'plateau'])
      .describe('Which events: end (the run stopped, any reason), crash-streak, plateau. Default all three.'),
    crashStreak: z
      .number()
      .int()
      .min(1)
      .default(3)
      .describe('Crashes in a row that send crash-streak (once per streak). Default 3.'),
    plateau: z
      .number()
      .int()
      .min(1)
      .default(10)
      .describe('Iterations in a row without a keep that send plateau (once per streak). Default 10.'),
    timeoutS: z.number().positive().default(30).describe('Hard timeout of the command in seconds. Default 30.'),
  })
  .strict();

/** A validated `notify:` block. */
export type NotifyConfig = z.output<typeof notifySchema>;

/** One notification: the event, a one-line message and what the command's environment carries. */
export interface Notification {
  /** The event. */
  readonly event: NotifyEvent;
  /** One line for a human. */
  readonly message: string;
  /** The iteration it concerns. */
  readonly iteration: number;
  /** The best score so far, when known. */
  readonly best: number | undefined;
}

/**
 * Turns loop events into notifications: `end` at `stopped`; `crash-streak` once `crashStreak`
 * crashes (not repair attempts) happened in a row; `plateau` once `plateau` iterations in a row
 * ended without a keep. Each streak notifies once and is reset by a keep (and a crash streak by
 * any non-crash). Pure: returns what to send, sends nothing.
 */
export function createNotifyRules(
  config: Pick<NotifyConfig, 'on' | 'crashStreak' | 'plateau'>,
  metricName: string,
): (event: LoopEvent) => Notification | undefined {
  let crashes = 0;
  let withoutKeep = 0;
  let best: number | undefined;
  const wants = (e: NotifyEvent) => config.on.includes(e);
  return (event) => {
    switch (event.type) {
      case 'baseline':
        best = event.record.score ?? undefined;
        return undefined;
      case 'resumed':
        best = event.best;
        return undefined;
      case 'kept':
        best = event.record.score ?? best;
        crashes = 0;
        withoutKeep = 0;
        return undefined;
      case 'reverted':
      case 'crash': {
        if (event.type === 'crash' && event.willRepair) return undefined;
        const iteration = event.record.iteration;
        withoutKeep += 1;
        crashes = event.type === 'crash' ? crashes + 1 : 0;
        if (event.type === 'crash' && crashes === config.crashStreak && wants('crash-streak'))
          return {
            event: 'crash-streak',
            message: `loop: ${crashes} crashes in a row (iteration ${iteration}: ${event.record.description})`,
            iteration,
            best,
          };
        if (withoutKeep === config.plateau && wants('plateau'))
          return {
            event: 'plateau',
            message: `loop: ${withoutKeep} iterations without a keep (best ${metricName} ${best ?? '-'})`,
            iteration,
            best,
          };
        return undefined;
      }
      case 'stopped': {
        if (!wants('end')) return undefined;
        const s = event.summary;
        return {
          event: 'end',
          message:
            `loop: stopped (${s.stop.reason}${s.stop.message ? `: ${s.stop.message}` : ''}) ` +
            `after ${s.iterations} iterations; ${metricName} ${s.baseline} -> ` +
            `best ${s.best}; keep ${s.counts.kept} ` +
            `discard ${s.counts.reverted + s.counts.rejected} ` +
            `crash ${s.counts.crash}`,
          iteration: s.iterations,
          best: s.best,
        };
      }
      default:
        return undefined;
    }
  };
}

/** What {@link createNotifier} returns. */
export interface Notifier {
  /** Feed every loop event; a notification it implies starts the command (in the background). */
  readonly event: (event: LoopEvent) => void;
  /** Resolves once every command started so far has ended. */
  readonly flush: () => Promise<void>;
}

/**
 * Sends the notifications of {@link createNotifyRules} by running `config.command` in `cwd`
 * (own process group, killed at `timeoutS`; through core's `runInGroupToLog`). A command that
 * fails is reported through `onError` and never stops the run.
 */
export function createNotifier(
  config: NotifyConfig,
  options: { cwd: string; metricName: string; onError: (line: string) => void },
): Notifier {
  const rules = createNotifyRules(config, options.metricName);
  const pending = new Set<Promise<void>>();
  const send = async (n: Notification): Promise<void> => {
    const tmp = await mkdtemp(join(tmpdir(), 'loop-notify-'));
    try {
      const logPath = join(tmp, 'out.log');
      const env = {
        ...process.env,
        LOOP_NOTIFY_EVENT: n.event,
        LOOP_NOTIFY_MESSAGE: n.message,
        LOOP_ITERATION: String(n.iteration),
        LOOP_BEST: n.best === undefined ? '' : String(n.best),
      };
      const r = await runInGroupToLog({
        logPath,
        command: config.command,
        cwd: options.cwd,
        env,
        input: `${n.message}\n`,
        killTimeoutMs: config.timeoutS * 1000,
        graceMs: 1000,
      });
      if (r.spawnError || r.timedOut || r.exitCode !== 0) {
        const out = (await readFile(logPath, 'utf8').catch(() => '')).trim().split('\n').slice(-2).join(' ');
        const failure = r.spawnError
          ? `could not start: ${r.spawnError.message}`
          : r.timedOut
            ? `timed out after ${config.timeoutS} s`
            : describeExit(r.exitCode, r.signal);
        options.onError(`notify: the ${n.event} ` + `command ${failure}${out ? `: ${out}` : ''}`);
      }
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  };
  return {
    event: (event) => {
      const n = rules(event);
      if (!n) return;
      const p = send(n).catch((error: unknown) => options.onError(`notify: ${(error as Error).message}`));
      pending.add(p);
      void p.finally(() => pending.delete(p));
    },
    flush: async () => {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}

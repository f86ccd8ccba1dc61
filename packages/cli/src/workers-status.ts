import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CONFIG_FILES, loadConfig } from './load-config.js';

/** The workers `loop status` shows for a config with `parallel.workers`. */
export interface WorkersStatus {
  /** The Redis URL of the config. */
  readonly redis: string;
  /** The queue name. */
  readonly queue: string;
  /** The workers connected now (`EvaluationQueue.workers()`): name `<host>:<pid>:<n>`, address, seconds connected. */
  readonly seen: readonly { readonly name: string; readonly addr: string; readonly ageS: number }[];
  /** Why the workers could not be listed (Redis unreachable within `timeoutMs`). */
  readonly error?: string;
}

/**
 * The workers seen on the queue of the config at `configFile` (or the default config file of
 * `dir`), when that config has `parallel.workers`; undefined otherwise (no config, another
 * preset, no workers). Never throws: an unreachable Redis is reported in `error` after `timeoutMs`.
 *
 * @param timeoutMs how long to wait for Redis, ms. @default 3000
 */
export async function readWorkersStatus(
  configFile: string | undefined,
  dir: string,
  timeoutMs = 3000,
): Promise<WorkersStatus | undefined> {
  const file = configFile ?? DEFAULT_CONFIG_FILES.map((n) => join(dir, n)).find((p) => existsSync(p));
  if (!file) return undefined;
  let workers;
  try {
    workers = (await loadConfig(file)).config.parallel?.workers;
  } catch {
    return undefined;
  }
  if (!workers) return undefined;
  const { createEvaluationQueue, DEFAULT_QUEUE } = await import('@loop/workers-bullmq');
  const name = workers.queue ?? DEFAULT_QUEUE;
  const queue = createEvaluationQueue({ redis: workers.redis, queue: name });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Redis at ${workers.redis} did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    const seen = await Promise.race([queue.workers(), timeout]);
    return { redis: workers.redis, queue: name, seen: seen.map((w) => ({ name: w.name, addr: w.addr, ageS: w.ageS })) };
  } catch (error) {
    return { redis: workers.redis, queue: name, seen: [], error: (error as Error).message };
  } finally {
    clearTimeout(timer);
    await Promise.race([queue.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  }
}

/** `workers (<queue> on <redis>): N seen`, then one line per worker (name, address, minutes connected). */
export function formatWorkersStatus(w: WorkersStatus): string {
  if (w.error) return `workers (${w.queue} on ${w.redis}): unknown: ${w.error}`;
  const lines = [`workers (${w.queue} on ${w.redis}): ${w.seen.length} seen`];
  for (const s of w.seen) lines.push(`  ${s.name}  ${s.addr}  connected ${Math.round(s.ageS)} s`);
  return lines.join('\n');
}

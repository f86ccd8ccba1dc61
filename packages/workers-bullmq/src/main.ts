import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createWorker } from './worker.js';

const usage = `usage: loop-worker --redis URL [--concurrency N] [--workdir DIR] [--queue NAME] [--link REL=ABS]...
  --redis URL        Redis the coordinator uses (redis://host:6379)
  --concurrency N    jobs at once (default 1)
  --workdir DIR      clones and working copies (default ~/.loop-worker)
  --queue NAME       BullMQ queue (default loop-candidates)
  --link REL=ABS     symlink a local path into every working copy (repeatable)
  --lock-ms N        job lock, ms (default 30000); --stalled-ms N stalled check, ms (default 30000)
  --max-stalled N    times a job whose worker died is put back before it fails (default 2)`;

/**
 * Runs the `loop-worker` command with `argv` (without node and the script). Resolves with the exit
 * code: 0 after a SIGINT/SIGTERM once the running jobs finished (a second signal exits at once), 2
 * for bad arguments.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for an invalid option value; {@link LoopError} `LOCK_HELD` when the workdir is
 * in use.
 */
export async function main(argv: readonly string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        redis: { type: 'string' },
        concurrency: { type: 'string' },
        workdir: { type: 'string' },
        queue: { type: 'string' },
        link: { type: 'string', multiple: true },
        'lock-ms': { type: 'string' },
        'stalled-ms': { type: 'string' },
        'max-stalled': { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`);
    return 2;
  }
  if (values.help || !values.redis) {
    process.stderr.write(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  const link: Record<string, string> = {};
  for (const entry of values.link ?? []) {
    const at = entry.indexOf('=');
    if (at < 1 || !isAbsolute(entry.slice(at + 1))) {
      process.stderr.write(`--link ${entry}: expected REL=ABSOLUTE_PATH\n`);
      return 2;
    }
    link[entry.slice(0, at)] = entry.slice(at + 1);
  }
  const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
  const worker = await createWorker({
    redis: values.redis,
    workdir: resolve(values.workdir ?? join(homedir(), '.loop-worker')),
    link,
    ...(values.concurrency ? { concurrency: num(values.concurrency)! } : {}),
    ...(values.queue ? { queue: values.queue } : {}),
    ...(values['lock-ms'] ? { lockDurationMs: num(values['lock-ms'])! } : {}),
    ...(values['stalled-ms'] ? { stalledIntervalMs: num(values['stalled-ms'])! } : {}),
    ...(values['max-stalled'] ? { maxStalledCount: num(values['max-stalled'])! } : {}),
    onEvent: (e) => process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...e })}\n`),
  });
  await worker.ready();
  process.stdout.write(`${JSON.stringify({ type: 'ready', worker: worker.identity.id })}\n`);
  // The first SIGINT/SIGTERM stops taking jobs and lets the running ones finish; a second one
  // exits at once (core's process groups end the running evaluations on exit; BullMQ retries them).
  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      const now = () => process.exit(130);
      process.once('SIGINT', now);
      process.once('SIGTERM', now);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await worker.close();
  return 0;
}

/** Runs {@link main} with this process's arguments and exits with its code (the `loop-worker` bin). */
export function runCli(): void {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`[loop] [workers-bullmq] ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}

// Run directly (node --import tsx src/main.ts ...): start. Imported (the bin, the loop CLI): do nothing.
const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(realpathSync(entry)).href) runCli();

import { Option, type Command } from 'commander';
import type { CliIo } from './cli-io.js';

/**
 * Adds `loop worker --redis URL [--concurrency N] [--workdir DIR] [--queue NAME] [--link REL=ABS]...`
 * (issue 15): the same worker as the `loop-worker` bin of `@loop/workers-bullmq`, whose
 * `runWorkerCommand(argv)` it calls with the options rebuilt as arguments. It prints one JSON
 * line per event and runs until SIGINT or SIGTERM (running jobs finish; a second signal exits at
 * once). Exit code: 0 after a signal, 2 for bad arguments. Guide: docs/many-machines.md.
 */
export function addWorkerCommand(program: Command, _io: CliIo, setCode: (code: number) => void): void {
  program
    .command('worker')
    .description(
      'evaluate the candidates of loops whose config has parallel.workers: a ' +
        'BullMQ worker on that Redis (docs/many-machines.md)',
    )
    .requiredOption('--redis <url>', 'the Redis the coordinator uses (redis://host:6379)')
    .option('--concurrency <n>', 'jobs at once (one per GPU)', '1')
    .option('--workdir <dir>', 'clones and working copies (default ~/.loop-worker)')
    .option('--queue <name>', 'the queue (default loop-candidates; must match parallel.workers.queue)')
    .addOption(
      new Option('--link <rel=abs>', 'symlink a local path into every working copy (repeatable)').argParser(
        (v: string, prev: string[] = []) => [...prev, v],
      ),
    )
    .option('--lock-ms <n>', 'job lock in ms, renewed at half of it (the heartbeat)')
    .option('--stalled-ms <n>', 'how often to look for jobs of dead workers, ms')
    .option('--max-stalled <n>', "times a dead worker's job is put back before it fails")
    .action(
      async (opts: {
        redis: string;
        concurrency: string;
        workdir?: string;
        queue?: string;
        link?: string[];
        lockMs?: string;
        stalledMs?: string;
        maxStalled?: string;
      }) => {
        const argv = ['--redis', opts.redis, '--concurrency', opts.concurrency];
        if (opts.workdir) argv.push('--workdir', opts.workdir);
        if (opts.queue) argv.push('--queue', opts.queue);
        for (const l of opts.link ?? []) argv.push('--link', l);
        if (opts.lockMs) argv.push('--lock-ms', opts.lockMs);
        if (opts.stalledMs) argv.push('--stalled-ms', opts.stalledMs);
        if (opts.maxStalled) argv.push('--max-stalled', opts.maxStalled);
        const { runWorkerCommand } = await import('@loop/workers-bullmq');
        setCode(await runWorkerCommand(argv));
      },
    );
}

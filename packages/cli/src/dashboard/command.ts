import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../cli-constants.js';
import { UsageError } from '../usage-error.js';

/** The port `loop dashboard` listens on when `--port` is not given. */
export const DEFAULT_DASHBOARD_PORT = 8377;

/**
 * Adds `loop dashboard [dir] [--port N]`: serves the live dashboard of the runs found in `dir`
 * (default: the current directory) on `http://127.0.0.1:<port>/` until Ctrl-C (SIGINT) or SIGTERM.
 * The server is loaded only when the command runs.
 */
export function addDashboardCommand(program: Command, io: CliIo, setCode: (code: number) => void): void {
  program
    .command('dashboard')
    .description(
      "serve a live page on 127.0.0.1 of the runs in a folder: each run's plot " +
        '(updating as rows land), diffs, log tails, stop reason, running or ' +
        'finished',
    )
    .argument('[dir]', 'the folder holding the workspaces (or one workspace)', '.')
    .option('--port <n>', `the port (0: any free one)`, String(DEFAULT_DASHBOARD_PORT))
    .option(
      '--holdout',
      "also show the sealed holdout's scores (any local process can read the page: an agent with network on could too)",
      false,
    )
    .action(async (dir: string, opts: { port: string; holdout: boolean }) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port must be a whole number from 0 to 65535, found ${JSON.stringify(opts.port)}`);
      const { startDashboard } = await import('./server.js');
      const dashboard = await startDashboard({ root: resolve(io.cwd, dir), port, holdout: opts.holdout });
      io.stdout.write(`dashboard ${dashboard.url}  (runs in ${dashboard.root}); Ctrl-C stops it\n`);
      if (opts.holdout)
        io.stdout.write(
          'dashboard shows sealed holdout scores: stop it while an agent with ' +
            'network access runs (it can reach 127.0.0.1)\n',
        );
      await new Promise<void>((done) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          done();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await dashboard.close();
      setCode(EXIT_CODES.STOPPED);
    });
}

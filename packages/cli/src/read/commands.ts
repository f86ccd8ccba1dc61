import { writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES, LOG_STATUSES } from '../cli-constants.js';
import type { PointKind } from '../report/results.js';
import { UsageError } from '../usage-error.js';

/** What every read command loads when it runs (the results parser, the config loader), not at start-up. */
const reading = async () => {
  const [log, source] = await Promise.all([import('./log.js'), import('./results-source.js')]);
  return { ...log, ...source };
};

type Direction = 'lower' | 'higher';
const toDirection = (d: Direction | undefined) =>
  d === undefined ? {} : { direction: d === 'lower' ? ('minimize' as const) : ('maximize' as const) };

/** Distinct legend labels for several runs: each results.tsv's folder name, made unique. */
function runLabels(paths: readonly string[]): string[] {
  const names = paths.map((p) => basename(dirname(p)) || p);
  return names.map((n, i) => (names.indexOf(n) === i && names.lastIndexOf(n) === i ? n : `${n} (${i + 1})`));
}

/**
 * Adds the read commands: `loop log`, `loop diff <iteration>` and `loop report` (one run or
 * several on one plot; `--format csv|json` export). Each takes a results.tsv, a config file or a
 * workspace folder (default: the config in the current directory, else the directory).
 */
export function addReadCommands(program: Command, io: CliIo, setCode: (code: number) => void): void {
  program
    .command('log')
    .description('one line per iteration of a run: iteration, status, score, commit, description')
    .argument('[target]', 'results.tsv, a config file or a workspace (default: the config here, else .)')
    .addOption(new Option('--status <status...>', 'only rows of these classes').choices(LOG_STATUSES))
    .option('--json', 'print JSON (an array of rows)', false)
    .option(
      '--output <iteration>',
      "print the run command's output (stdout and stderr) of that iteration instead: .loop/logs/<iteration>.log",
    )
    .action(async (target: string | undefined, opts: { status?: PointKind[]; json: boolean; output?: string }) => {
      const { formatLog, logEntries, readResultsOf, resolveResultsSource } = await reading();
      if (opts.output !== undefined) {
        const n = Number(opts.output);
        if (!Number.isInteger(n) || n < 0)
          throw new UsageError(
            `loop log --output: the iteration must be a whole number, found ${JSON.stringify(opts.output)}`,
          );
        const { readIterationLog } = await import('./run-log.js');
        const log = await readIterationLog((await resolveResultsSource(target, io.cwd)).dir, n);
        io.stdout.write(opts.json ? `${JSON.stringify(log, null, 2)}\n` : log.text);
        setCode(EXIT_CODES.STOPPED);
        return;
      }
      const source = await resolveResultsSource(target, io.cwd);
      // Each row's named metrics and broken constraints from the sidecar (issue 28).
      const { withRowMetrics } = await import('./row-metrics.js');
      const entries = await withRowMetrics(source.dir, logEntries(await readResultsOf(source), opts.status ?? []));
      io.stdout.write(`${opts.json ? JSON.stringify(entries, null, 2) : formatLog(entries)}\n`);
      setCode(EXIT_CODES.STOPPED);
    });

  program
    .command('diff')
    .description(
      'the change an iteration tried, kept or discarded (git show of its ' +
        'commit; discarded ones from refs/loop/discarded/<n>)',
    )
    .argument('<iteration>', 'the iteration (a row of results.tsv; 0 is the baseline)')
    .argument('[target]', 'results.tsv, a config file or a workspace (default: the config here, else .)')
    .option('--json', 'print JSON: iteration, status, description, commit, ref, patch', false)
    .action(async (iteration: string, target: string | undefined, opts: { json: boolean }) => {
      const n = Number(iteration);
      if (!Number.isInteger(n) || n < 0)
        throw new UsageError(`loop diff: the iteration must be a whole number, found ${JSON.stringify(iteration)}`);
      const { readResultsOf, resolveResultsSource } = await reading();
      const source = await resolveResultsSource(target, io.cwd);
      const { diffIteration } = await import('./diff.js');
      const diff = await diffIteration(source.dir, await readResultsOf(source), n);
      io.stdout.write(
        opts.json
          ? `${JSON.stringify(diff, null, 2)}\n`
          : `iteration ${diff.iteration}  ${diff.status}  ${diff.description}  ` +
              `(${diff.ref})\n${diff.patch.endsWith('\n') ? diff.patch : `${diff.patch}\n`}`,
      );
      setCode(EXIT_CODES.STOPPED);
    });

  program
    .command('report')
    .description(
      'plot a run (every experiment a dot, the running best as a step line), ' +
        'several runs on one plot, or export the rows',
    )
    .argument('[results...]', 'results.tsv files, config files or workspaces (default: the config here, else .)')
    .option(
      '--out <file>',
      "where to write: the SVG (default: .loop/progress.svg in the run's " +
        'workspace, unless --html is given), or the csv/json export (default: ' +
        'stdout)',
    )
    .option('--html <file.html>', 'one run: also write a self-contained HTML page with the plot and the table')
    .addOption(
      new Option('--format <format>', 'svg (the plot), csv or json (the rows)')
        .choices(['svg', 'csv', 'json'])
        .default('svg'),
    )
    .option(
      '--metric <name>',
      "the metric name on the axis and title (default: the run's metricName from .loop/cli.json)",
    )
    .addOption(
      new Option(
        '--direction <direction>',
        'which way is better (default: from .loop/state.json, else guessed)',
      ).choices(['lower', 'higher']),
    )
    .option('--title <title>', 'the plot title')
    .option('--json', 'the rows as JSON (the same as --format json, like the other read commands)', false)
    .option(
      '--pareto <objectives>',
      'also draw the Pareto front of two or more metrics (e.g. ' +
        'latency_ms:min,accuracy:max): .loop/pareto.svg and .loop/pareto.json',
    )
    .action(
      async (
        targets: string[],
        opts: {
          out?: string;
          html?: string;
          format: 'svg' | 'csv' | 'json';
          metric?: string;
          direction?: Direction;
          title?: string;
          json: boolean;
          pareto?: string;
        },
      ) => {
        if (opts.json) {
          if (opts.format === 'csv') throw new UsageError('--json and --format csv ask for two formats; give one');
          opts.format = 'json';
        }
        const { readResultsOf, resolveResultsSource } = await reading();
        const sources = await Promise.all(
          (targets.length > 0 ? targets : [undefined]).map((t) => resolveResultsSource(t, io.cwd)),
        );
        const out = opts.out ? resolve(io.cwd, opts.out) : undefined;
        if (opts.format !== 'svg') {
          if (opts.html) throw new UsageError('--html draws the plot; it does not go with --format csv or json');
          const labels = runLabels(sources.map((x) => x.results));
          // Each row with its start time, duration, metrics and parameters (issue 32 item 15).
          const { exportCsv, exportMultiCsv, exportTable } = await import('./export-rows.js');
          const runs = await Promise.all(
            sources.map(async (s, i) => ({
              run: labels[i]!,
              results: s.results,
              table: await exportTable(s.dir, await readResultsOf(s)),
            })),
          );
          const json = () =>
            JSON.stringify(
              runs.length === 1
                ? runs[0]!.table.rows
                : runs.map((r) => ({ run: r.run, results: r.results, rows: r.table.rows })),
              null,
              2,
            );
          const text =
            opts.format === 'json'
              ? `${json()}\n`
              : runs.length === 1
                ? exportCsv(runs[0]!.table)
                : exportMultiCsv(runs);
          if (out) {
            await writeFile(out, text);
            io.stdout.write(`wrote ${out}\n`);
          } else io.stdout.write(text);
          return setCode(EXIT_CODES.STOPPED);
        }
        // vega: loaded only for reports
        const { writeReport, writeMultiRunReport } = await import('../report/write-report.js');
        const common = {
          ...toDirection(opts.direction),
          ...(opts.title ? { title: opts.title } : {}),
          ...(opts.metric ? { metric: opts.metric } : {}),
        };
        if (sources.length > 1) {
          if (opts.html) throw new UsageError('--html is for one run; several runs are drawn on one SVG (--out)');
          const written = await writeMultiRunReport({
            runs: sources.map((s, i) => ({ results: s.results, label: runLabels(sources.map((x) => x.results))[i]! })),
            ...(out ? { out } : {}),
            ...common,
          });
          for (const f of written.files) io.stdout.write(`wrote ${f}\n`);
          return setCode(EXIT_CODES.STOPPED);
        }
        const paretoReport = opts.pareto ? await import('../report/pareto.js') : undefined;
        // a bad --pareto is a usage error before anything is written
        const objectives = opts.pareto ? paretoReport!.parseObjectives(opts.pareto) : undefined;
        const written = await writeReport({
          results: sources[0]!.results,
          ...(out ? { out } : {}),
          ...(opts.html ? { html: resolve(io.cwd, opts.html) } : {}),
          ...common,
        });
        for (const f of written.files) io.stdout.write(`wrote ${f}\n`);
        if (paretoReport && objectives) {
          const pareto = await paretoReport.writeParetoReport({ results: sources[0]!.results, objectives });
          for (const f of pareto.files) io.stdout.write(`wrote ${f} (Pareto front: ${pareto.front.length} states)\n`);
        }
        // The sealed holdout's gap (issue 33): printed, plotted in its state folder, never into the workspace.
        const { writeHoldoutReport } = await import('../report/holdout-report.js');
        for (const line of await writeHoldoutReport(
          sources[0]!.dir,
          opts.html ? resolve(io.cwd, opts.html) : undefined,
        ))
          io.stdout.write(`${line}\n`);
        setCode(EXIT_CODES.STOPPED);
      },
    );
}

import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { runDemo } from './demo.js';
import { parseSchedule } from './run-config.js';

const HELP =
  `Usage: pnpm demo [--iterations N] [--steps N] [--budget-s S] [--seed N] [--proposer tpe|mutator] ` +
  `[--out DIR] [--agent "<command>"] [--resume] [--keep strict|noise-aware] [--repeats N] [--max-params N] ` +
  `[--parallel K] [--schedule async|batch] [--no-prune] [--cost-aware] [--workers URL [--queue NAME]]

Tunes a character-level language model on English first names with a keep/revert loop.
  --iterations N   iterations after the baseline, rounded up to whole
                   batches of --parallel (0 = until interrupted)           [default 12]
  --steps N        training steps per run: a score that does not move with
                   machine load (0 = train for --budget-s seconds instead)   [default 3000]
  --budget-s S     with --steps 0 the training time per run, in seconds; with
                   steps the wall-clock kill is 40 x S + 60 s                [default 20]
  --seed N         seed of the proposer                                      [default 1]
  --proposer P     tpe (model-based, several parameters at once) or mutator
                   (one parameter at random per iteration)                   [default tpe]
  --out DIR        the workspace (a new git repository)   [default examples/ml-tuning/.runs/<tag>]
  --agent CMD      use an agent CLI (prompt on stdin) instead of the built-in proposer
  --resume         continue the run in --out from its last keep commit
  --keep RULE      strict (any lower val_bpc) or noise-aware (re-run a candidate and keep it
                   only when its gain clears the run-to-run noise at 95%)     [default strict]
  --repeats N      noise-aware: the most runs of one candidate                [default 10]
  --parallel K     candidates per batch, each trained at once in its own working copy;
                   the best is kept (training uses one core each)             [default 2]
  --workers URL    evaluate the candidates on "loop worker --redis URL" processes
                   (BullMQ on Redis, docs/many-machines.md) instead of locally
  --queue NAME     with --workers: the queue, as the workers' --queue  [default loop-candidates]
  --schedule S     async (a freed core starts the next training at once) or batch (wait for
                   the batch's slowest: two runs with one seed give the same rows) [default async]
  --no-prune       run every training to its end (default: a training worse than the
                   incumbent's curve at the same step, past 10% of the steps, is stopped)
  --cost-aware     tpe: rank candidates by expected improvement per predicted training
                   second (a cheaper config of equal promise trains first)
  --max-params N   a blocking constraint: a candidate whose model has more than N
                   parameters is never kept (params <= N; docs/metrics.md)
Ctrl-C once stops after restoring the last kept state; twice exits at once.`;

/** Parses a plain decimal flag value; rejects hex, exponents, signs and empty strings. */
function parseNumber(name: string, text: string, integer: boolean, allowZero: boolean): number {
  const n = Number(text);
  if (!(integer ? /^\d+$/ : /^\d+(\.\d+)?$/).test(text) || (!allowZero && n === 0)) {
    throw new TypeError(
      `--${name} must be a ${integer ? 'whole number' : 'number'} ${allowZero ? '>= 0' : '> 0'}, got "${text}"`,
    );
  }
  return n;
}

const VALUE_FLAGS = new Set([
  '--iterations',
  '--steps',
  '--budget-s',
  '--seed',
  '--proposer',
  '--out',
  '--agent',
  '--keep',
  '--repeats',
  '--parallel',
  '--workers',
  '--queue',
  '--schedule',
  '--max-params',
]);

/** `--iterations -1` reads as two flags to parseArgs: join a value flag with a value that starts with "-". */
function joinNegativeValues(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = args[i + 1];
    if (VALUE_FLAGS.has(a) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(process.argv.slice(2).filter((a) => a !== '--')),
      options: {
        iterations: { type: 'string' },
        steps: { type: 'string' },
        'budget-s': { type: 'string' },
        seed: { type: 'string' },
        proposer: { type: 'string' },
        out: { type: 'string' },
        agent: { type: 'string' },
        resume: { type: 'boolean', default: false },
        keep: { type: 'string' },
        repeats: { type: 'string' },
        parallel: { type: 'string' },
        workers: { type: 'string' },
        queue: { type: 'string' },
        'no-prune': { type: 'boolean', default: false },
        'cost-aware': { type: 'boolean', default: false },
        schedule: { type: 'string' },
        'max-params': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
  } catch (error) {
    throw new TypeError(`${(error as Error).message.split('\n')[0]} (see --help)`);
  }
  const { values } = parsed;
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const proposer = values.proposer ?? 'tpe';
  if (proposer !== 'tpe' && proposer !== 'mutator')
    throw new TypeError(`--proposer must be tpe or mutator, got "${proposer}"`);
  const keep = values.keep ?? 'strict';
  if (keep !== 'strict' && keep !== 'noise-aware')
    throw new TypeError(`--keep must be strict or noise-aware, got "${keep}"`);
  if (values.repeats !== undefined && keep !== 'noise-aware') throw new TypeError('--repeats needs --keep noise-aware');
  const repeats = values.repeats === undefined ? 10 : parseNumber('repeats', values.repeats, true, false);
  if (repeats < 2) throw new TypeError(`--repeats must be at least 2, got ${repeats}`);
  const parallel = values.parallel === undefined ? undefined : parseNumber('parallel', values.parallel, true, false);
  if (parallel !== undefined && parallel > 256) throw new TypeError(`--parallel must be at most 256, got ${parallel}`);
  if (values.workers !== undefined && !/^rediss?:\/\/\S+$/.test(values.workers))
    throw new TypeError(`--workers must be a redis:// or rediss:// URL, got "${values.workers}"`);
  if (values.queue !== undefined && values.workers === undefined) throw new TypeError('--queue needs --workers');
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts === 1) {
      const again = signal === 'SIGINT' ? ' (Ctrl-C again to exit at once)' : '';
      console.log(`\n${signal}: stopping after restoring the last kept state${again}`);
      controller.abort();
    } else if (signal === 'SIGINT') {
      // A second Ctrl-C exits now; the harness's process group is killed on exit. The workspace
      // may hold the unevaluated candidate: --resume resets it to the last kept commit.
      console.log('exiting now; run with --resume to reset the workspace to the last kept commit');
      process.exit(130);
    }
    // A repeated SIGTERM (timeout and pnpm both forward one) changes nothing: the clean stop goes on.
  };
  // SIGTERM (kill, timeout, systemd) stops as cleanly as Ctrl-C.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed output pipe (`demo | head`) stops as cleanly as Ctrl-C instead of crashing mid-iteration.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') controller.abort();
  });
  const { summary } = await runDemo({
    ...(values.iterations === undefined
      ? {}
      : { iterations: parseNumber('iterations', values.iterations, true, true) }),
    ...(values.steps === undefined ? {} : { steps: parseNumber('steps', values.steps, true, true) }),
    ...(values['budget-s'] === undefined ? {} : { budgetS: parseNumber('budget-s', values['budget-s'], false, false) }),
    ...(values.seed === undefined ? {} : { seed: parseNumber('seed', values.seed, true, true) }),
    ...(values.out ? { out: resolve(process.env.INIT_CWD ?? process.cwd(), values.out) } : {}),
    ...(values.agent ? { agent: values.agent } : {}),
    proposer,
    resume: values.resume,
    keep,
    repeats,
    ...(parallel === undefined ? {} : { parallel }),
    ...(values.workers ? { workers: values.workers } : {}),
    ...(values.queue ? { queue: values.queue } : {}),
    prune: !values['no-prune'],
    costAware: values['cost-aware'],
    ...(values.schedule === undefined ? {} : { schedule: parseSchedule(values.schedule) }),
    ...(values['max-params'] === undefined
      ? {}
      : { maxParams: parseNumber('max-params', values['max-params'], true, false) }),
    signal: controller.signal,
  });
  return summary.stop.reason === 'aborted' ? 130 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error & { code?: string }) => {
    console.error(`error${error.code ? ` [${error.code}]` : ''}: ${error.message}`);
    process.exit(error.code === 'CONFIG_INVALID' || error instanceof TypeError ? 2 : 1);
  },
);

import { Option, type Command } from 'commander';
import { KEEP_POLICIES } from './cli-constants.js';
import { UsageError } from './usage-error.js';

type Kind = 'int' | 'number' | 'string' | 'boolean' | 'list';

/** One command-line flag of `loop run` / `loop resume` and the config field it overrides (dotted for nested). */
export interface RunFlag {
  /** Commander's flag spec, e.g. `--max-iterations <n>`. */
  readonly flag: string;
  /** The config field, e.g. `maxIterations` or `keep.policy`. */
  readonly field: string;
  /** How the value is parsed. */
  readonly kind: Kind;
  /** The help line. */
  readonly help: string;
  /** Allowed values, when there is a fixed set. */
  readonly choices?: readonly string[];
  /**
   * A `list` flag's entry as written into the config's list (repeatable; appended to the file's list). @default the
   * value itself
   */
  readonly entry?: (value: string) => unknown;
}

/** The flags that override a config's fields for one run; each takes `--x=y` and `--x y`. */
export const RUN_FLAGS: readonly RunFlag[] = [
  {
    flag: '--max-iterations <n>',
    field: 'maxIterations',
    kind: 'int',
    help: 'iterations after the baseline (0: until Ctrl-C)',
  },
  { flag: '--time-budget-s <s>', field: 'timeBudgetS', kind: 'number', help: 'time budget per run in seconds' },
  { flag: '--kill-timeout-s <s>', field: 'killTimeoutS', kind: 'number', help: 'hard kill timeout per run in seconds' },
  { flag: '--plateau <n>', field: 'plateau', kind: 'int', help: 'stop after n iterations in a row without a keep' },
  { flag: '--target-score <x>', field: 'targetScore', kind: 'number', help: 'stop once the best score reaches x' },
  { flag: '--wall-clock-s <s>', field: 'wallClockS', kind: 'number', help: 'stop after s seconds in total' },
  {
    flag: '--cost-budget <usd>',
    field: 'costBudget',
    kind: 'number',
    help: 'stop before a proposal that would take the agent spend over usd dollars',
  },
  {
    flag: '--token-budget <n>',
    field: 'tokenBudget',
    kind: 'int',
    help: 'stop before a proposal that would take the agent spend over n tokens',
  },
  { flag: '--tag <tag>', field: 'tag', kind: 'string', help: 'the run tag (branch auto-iterate/<tag>)' },
  { flag: '--keep <policy>', field: 'keep.policy', kind: 'string', help: 'the keep rule', choices: KEEP_POLICIES },
  { flag: '--min-delta <x>', field: 'keep.minDelta', kind: 'number', help: 'min-delta: the improvement a keep needs' },
  {
    flag: '--baseline-repeats <n>',
    field: 'keep.baselineRepeats',
    kind: 'int',
    help: 'baseline runs to measure the noise floor',
  },
  { flag: '--allow-dirty', field: 'allowDirty', kind: 'boolean', help: 'start on a dirty working tree' },
  {
    flag: '--no-prune',
    field: 'prune.enabled',
    kind: 'boolean',
    help: 'run every candidate to its end (reports are still recorded)',
  },
  {
    flag: '--constraint <rule>',
    field: 'constraints',
    kind: 'list',
    help: "a blocking constraint, e.g. 'rss_mb <= baseline * 1.05' (repeatable; added to the config's)",
  },
  {
    flag: '--advisory-constraint <rule>',
    field: 'constraints',
    kind: 'list',
    help: 'an advisory constraint: kept, with a warning (repeatable)',
    entry: (rule) => ({ rule, mode: 'advisory' }),
  },
];

/** The config fields set by `list` flags: their values are appended to the file's list, not put in its place. */
export const LIST_FIELDS: ReadonlySet<string> = new Set(RUN_FLAGS.filter((f) => f.kind === 'list').map((f) => f.field));

/** Commander's attribute name of a flag (`--max-iterations <n>` → `maxIterations`). */
function attributeOf(flag: RunFlag): string {
  return new Option(flag.flag).attributeName();
}

/** Adds {@link RUN_FLAGS} to a command. */
export function addRunFlags(command: Command): Command {
  for (const f of RUN_FLAGS) {
    const option = new Option(f.flag, `${f.help} (${f.kind === 'list' ? 'adds to' : 'overrides'} ${f.field})`);
    if (f.kind === 'list')
      option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    command.addOption(f.choices ? option.choices(f.choices) : option);
  }
  return command;
}

/**
 * The config overrides of parsed flags, as a nested object (`{ maxIterations: 3, keep: { policy:
 * 'noise-aware' } }`); flags not given are absent.
 *
 * @throws {UsageError} for a value that is not a number (or not an integer) where one is expected.
 */
export function flagOverrides(opts: Record<string, unknown>): {
  values: Record<string, unknown>;
  fields: Map<string, string>;
} {
  const values: Record<string, unknown> = {};
  const fields = new Map<string, string>(); // config field -> flag, for messages
  for (const f of RUN_FLAGS) {
    const raw = opts[attributeOf(f)];
    if (raw === undefined) continue;
    // Commander gives a negated flag (`--no-prune`) the value true when it is absent.
    if (f.flag.startsWith('--no-') && raw !== false) continue;
    const name = f.flag.split(' ')[0]!;
    let value: unknown = raw;
    if (f.kind === 'list') {
      const entries = (raw as string[]).map((v) => (f.entry ? f.entry(v) : v));
      value = [...((values[f.field] as unknown[] | undefined) ?? []), ...entries];
    }
    if (f.kind === 'int' || f.kind === 'number') {
      const n = Number(raw);
      if (String(raw).trim() === '' || !Number.isFinite(n) || (f.kind === 'int' && !Number.isInteger(n)))
        throw new UsageError(
          `${name}: ${JSON.stringify(raw)} is not ${f.kind === 'int' ? 'a whole number' : 'a number'}`,
        );
      value = n;
    }
    const path = f.field.split('.');
    let at = values;
    for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[path.at(-1)!] = value;
    fields.set(f.field, name);
  }
  return { values, fields };
}

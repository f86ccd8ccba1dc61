/**
 * What the MCP server needs from the `loop` command's library (`@loop/cli`), passed in by the
 * caller (`loop mcp` passes `@loop/cli`'s `loopMcpHost`). Declared here structurally so that `@loop/mcp`
 * does not depend on `@loop/cli` (which depends on it for the `loop mcp` subcommand). Members are
 * methods so the cli's richer types fit without casts.
 */
export interface LoopMcpHost {
  /** The config file `arg` names, else the default one in `cwd` (loop.config.yaml, ...). @throws when there is none. */
  findConfigFile(arg: string | undefined, cwd: string): string;
  /** Reads and validates a config file. @throws `CONFIG_INVALID` naming file:line: field. */
  loadConfig(file: string): Promise<HostLoadedConfig>;
  /** Validates config text as `file` would be read; returns the parsed config. @throws `CONFIG_INVALID`. */
  parseConfigText(text: string, file: string): unknown;
  /** Writes the commented starter config of the auto-iterate preset. @throws when the file exists and not `force`. */
  writeStarterConfig(path: string, preset?: 'auto-iterate', force?: boolean): Promise<void>;
  /** Builds the auto-iterate run of a loaded config (the cli's `prepareRun`). */
  prepareRun(
    loaded: HostLoadedConfig,
    options: { resume: boolean; signal?: AbortSignal; onWarning?: (message: string) => void },
  ): HostConfiguredRun;
  /** Where a run stands (`loop status --json`). */
  readStatus(dir: string): Promise<unknown>;
  /** True when a live process holds the workspace lock of `dir` (`loop status`'s `locked`, without the rest). */
  isWorkspaceLocked(dir: string): Promise<boolean>;
  /** The results.tsv of a workspace folder. */
  resolveResultsSource(
    target: string | undefined,
    cwd: string,
  ): Promise<{ readonly results: string; readonly dir: string }>;
  /** Parses a results.tsv. @throws when there is none yet. */
  readResultsOf(source: { readonly results: string; readonly dir: string }): Promise<HostResultsData>;
  /** The rows of `data` whose class is one of `statuses` (all when empty): `loop log --json`. */
  logEntries(data: HostResultsData, statuses?: readonly HostPointKind[]): readonly HostLogEntry[];
  /**
   * The rows with their named metrics and broken constraints from the workspace's `.loop/iterations.jsonl` (issue 28).
   * @default rows unchanged
   */
  withRowMetrics?(dir: string, entries: readonly HostLogEntry[]): Promise<readonly HostLogEntry[]>;
  /** The change iteration `iteration` tried, from git: `loop diff --json`. */
  diffIteration(dir: string, data: HostResultsData, iteration: number): Promise<unknown>;
  /** Which way scores improve, inferred from the rows. */
  inferDirection(points: HostResultsData['points']): 'minimize' | 'maximize';
  /** The progress plot as SVG: `loop report`'s. */
  renderPlotSvg(data: HostResultsData, options: { direction: 'minimize' | 'maximize' }): Promise<string>;
  /**
   * The kept log of iteration `iteration`'s run (`.loop/logs/<n>.log`, 0 the baseline): its last
   * `tailBytes` from a line start (`loop log --output <n>`). @throws when that log is not kept.
   */
  readIterationLog(dir: string, iteration: number, tailBytes?: number): Promise<HostIterationLog>;
}

/** One iteration's kept run log. */
export interface HostIterationLog {
  /** The iteration (0 the baseline). */
  readonly iteration: number;
  /** The log file (absolute). */
  readonly path: string;
  /** The log, or its end when `truncated`. */
  readonly text: string;
  /** True when `text` is only the log's end. */
  readonly truncated: boolean;
}

/** A row's class in the plot and `loop log`. */
export type HostPointKind = 'baseline' | 'keep' | 'discard' | 'crash' | 'halted';

/** The statuses `loop_rows` filters by. */
export const ROW_KINDS: readonly HostPointKind[] = ['baseline', 'keep', 'discard', 'crash', 'halted'];

/** A loaded config: the parts the server reads or overrides (`maxIterations`, `proposer`). */
export interface HostLoadedConfig {
  /** The config file (absolute). */
  readonly file: string;
  /** The workspace (absolute). */
  readonly dir: string;
  /** The parsed config. */
  readonly config: { readonly maxIterations: number; readonly proposer: { readonly type: string } };
}

/** A run built from a config (the parts the server uses). */
export interface HostConfiguredRun {
  /** The run tag (branch `auto-iterate/<tag>`). */
  readonly tag: string;
  /** What the config implies. */
  readonly resolved: {
    readonly targetFiles: readonly string[];
    readonly metricName: string;
    readonly direction: 'lower' | 'higher';
    readonly resultsFile: string;
  };
  /** The auto-iterate run. */
  readonly run: {
    readonly branch: string;
    readonly run: () => Promise<HostSummary>;
    /**
     * The run's prologue (checks, workspace lock, run branch) and the loop to drive with ask/tell/step;
     * the lock is released when the loop stops. @throws as `run()` before the loop starts.
     */
    readonly open: () => Promise<HostHostedLoop>;
    /** What a resume repaired in `.git` (an orphan candidate saved, files rescued), one line each. */
    readonly rollback: { repairs(): readonly string[] };
  };
}

/** A candidate opened by {@link HostHostedLoop.ask} (core's `Trial`; the server only hands it back). */
export interface HostTrial {
  /** The iteration its row will have. */
  readonly iteration: number;
}

/** One row the engine appended (core's `IterationRecord`, the parts the server reports). */
export interface HostRecord {
  /** Its iteration. */
  readonly iteration: number;
  /** Its commit (any length; the server reports 40 hex). */
  readonly candidateId: string;
  /** The engine's status (`kept`, `reverted`, `crash`, ...). */
  readonly status: string;
  /** Why it crashed (the harness's exit, the proposer's error). */
  readonly error?: string;
  /** Why a keep was blocked or the run stopped early (a constraint, a guard, a pruner). */
  readonly note?: string;
}

/** What a step or a tell did (core's `StepOutcome`). */
export interface HostStepOutcome {
  /** The rows appended, none when the candidate was aborted. */
  readonly records: readonly HostRecord[];
  /** Set when the loop stopped after the call. */
  readonly stopped?: HostSummary;
}

/** The events the server listens to (a subset of core's). */
export type HostEvent =
  | { readonly type: 'baseline'; readonly record: HostRecord & { readonly score: number | null } }
  | { readonly type: 'resumed'; readonly best: number; readonly bestId: string }
  | { readonly type: 'kept'; readonly record: HostRecord & { readonly score: number | null } }
  | { readonly type: 'crash'; readonly record: HostRecord; readonly logTail: string; readonly willRepair: boolean };

/** The loop a host drives (auto-iterate's `HostedLoop`, core's ask/tell/step/stop). */
export interface HostHostedLoop {
  /** Opens one candidate (the checkpoint): the host edits after it. The first call measures the baseline or resumes. */
  ask(): Promise<HostTrial>;
  /** Evaluates the open trial's edit. @throws `EDIT_OUTSIDE_ARTIFACT` (the trial stays open, nothing touched). */
  tell(trial: HostTrial, edit: { readonly description: string }): Promise<HostStepOutcome>;
  /** One iteration with the configured proposer. */
  step(): Promise<HostStepOutcome>;
  /** Rolls an open trial back and stops the loop (the lock is released). */
  stop(message?: string): Promise<HostSummary | undefined>;
  /** Subscribes to one event type. */
  on<T extends HostEvent['type']>(type: T, handler: (event: Extract<HostEvent, { type: T }>) => void): () => void;
}

/** The loop summary (the parts the server reports). */
export interface HostSummary {
  /** The best score so far. */
  readonly best: number;
  /** Its commit. */
  readonly bestId: string;
  /** Why the run stopped. */
  readonly stop: { readonly reason: string; readonly message?: string };
}

/** Parsed results.tsv. */
export interface HostResultsData {
  /** The score column's name. */
  readonly metric: string;
  /** Which way scores improve, when the form implies it. */
  readonly direction?: 'minimize' | 'maximize';
  /** Every row, baseline first. */
  readonly points: readonly {
    readonly iteration: number;
    readonly score: number | null;
    readonly kind: HostPointKind;
    readonly status: string;
    readonly id: string;
    readonly description: string;
  }[];
}

/** One results row as `loop log --json` prints it. */
export interface HostLogEntry {
  /** 0 for the baseline. */
  readonly iteration: number;
  /** The class. */
  readonly kind: HostPointKind;
  /** The status as written. */
  readonly status: string;
  /** The score, `null` for a crash. */
  readonly score: number | null;
  /** The commit, `''` when none. */
  readonly id: string;
  /** The description. */
  readonly description: string;
  /** The row's named metrics (run measurements besides the score), when it has any. */
  readonly metrics?: Readonly<Record<string, number>>;
  /** The constraints the row broke (`constraint`, `mode`, `value`, `bound`, `violation`), when any. */
  readonly violations?: readonly {
    readonly constraint: string;
    readonly mode: string;
    readonly value: number | null;
    readonly bound: number | null;
    readonly violation: number | null;
  }[];
}

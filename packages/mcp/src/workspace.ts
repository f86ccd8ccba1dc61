import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { relative, resolve } from 'node:path';
import type { HostConfiguredRun, HostLoadedConfig, HostLogEntry, HostPointKind, HostResultsData, LoopMcpHost } from './host.js';
import { McpToolError } from './errors.js';
import { agentChanges, restoreUnappliedEdit, stashAgentEdit, stashPath } from './edit-stash.js';

/** The proposer command that re-applies a stashed edit (`bin/apply-edit.mjs` of this package). */
const APPLY_EDIT = fileURLToPath(new URL('../bin/apply-edit.mjs', import.meta.url));

/** What one loop step (`loop_evaluate`, `loop_run_iteration`) did. */
export interface StepResult {
  /** Whether the iteration ran: false when the run stopped first (its policy) and the edit was left in the tree. */
  readonly evaluated: boolean;
  /** The iteration's row status: `keep`, `discard`, `crash` (or a rejection), or `not-evaluated`. */
  readonly decision: string;
  /** The iteration's number in results.tsv. */
  readonly iteration: number | null;
  /** Its score, `null` for a crash. */
  readonly score: number | null;
  /** Its commit, 40 hex (a kept one is on the run branch, a discarded one under `refs/loop/discarded/<n>`); `''` when none. */
  readonly commit: string;
  /** The best score after the step. */
  readonly best: number;
  /** The best state's commit. */
  readonly bestId: string;
  /** The baseline's row, when this step measured it (the first step of a workspace). */
  readonly baseline?: HostLogEntry;
  /** Why the run stopped after the step. */
  readonly stop: { readonly reason: string; readonly message?: string };
}

/** Options of {@link createLoopWorkspace}. */
export interface LoopWorkspaceOptions {
  /** The auto-iterate workspace (a git repository root holding the config). */
  readonly dir: string;
  /**
   * The cli functions (see {@link LoopMcpHost}), or a function that loads them: called once, at the
   * first tool call that needs them, so that the server answers `initialize` without loading the
   * loop engine (`loop mcp` passes `() => import('@loop/cli')`).
   */
  readonly host: LoopMcpHost | (() => Promise<LoopMcpHost>);
}

/** The operations the MCP tools call, on one workspace; one loop step at a time. */
export interface LoopWorkspace {
  /** The workspace (absolute). */
  readonly dir: string;
  /** The config file's text, or `undefined` when there is none. */
  readonly readConfig: () => Promise<{ file: string; text: string } | undefined>;
  /** Writes `text` (validated first) or the auto-iterate starter config to `file` (default loop.config.yaml). @throws when it exists and not `force`. */
  readonly writeConfig: (options: { file?: string; text?: string; force?: boolean }) => Promise<{ file: string; text: string }>;
  /** Evaluates the agent's uncommitted edit: kept (committed) if better, else reverted (tree restored); one row appended. @throws `NO_EDIT` when nothing changed, `OUTSIDE_TARGETS` for a change outside the targets (nothing touched). */
  readonly evaluate: (description: string) => Promise<StepResult>;
  /** Runs one iteration with the configured proposer. @throws `DIRTY_EDIT` when the tree holds an unevaluated edit. */
  readonly runIteration: () => Promise<StepResult>;
  /** `loop status --json`. */
  readonly status: () => Promise<unknown>;
  /** The rows (optionally only some classes). */
  readonly rows: (kinds?: readonly HostPointKind[]) => Promise<readonly HostLogEntry[]>;
  /** `loop diff <iteration> --json`. */
  readonly diff: (iteration: number) => Promise<unknown>;
  /** results.tsv's text. */
  readonly resultsText: () => Promise<string>;
  /** The progress plot (SVG). */
  readonly plotSvg: () => Promise<string>;
  /** Aborts the step in flight (the engine reverts its candidate and leaves the last kept state). @returns whether one was running. */
  readonly stop: () => boolean;
}

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * The workspace operations behind the MCP tools. A step goes through the cli's `prepareRun` (so
 * the config's harness, scorer, keep policy, guards and the git rollback are the ones `loop run`
 * uses) as a one-iteration run: fresh (baseline first) when results.tsv has no rows, else a resume
 * with `maxIterations` one past the last row. `evaluate` stashes the agent's edit in
 * `.git/loop-mcp-edit.json`, restores the tree to the last keep and runs the step with the
 * proposer `node bin/apply-edit.mjs <stash>`, which puts the edit back; the engine then commits,
 * runs, keeps or reverts it and appends the row. If the step never reaches the proposer (refused
 * start, a stop policy firing first), the edit is put back into the tree.
 */
export function createLoopWorkspace(options: LoopWorkspaceOptions): LoopWorkspace {
  const dir = resolve(options.dir);
  let hostLoaded: Promise<LoopMcpHost> | undefined;
  const getHost = (): Promise<LoopMcpHost> => (hostLoaded ??= typeof options.host === 'function' ? options.host() : Promise.resolve(options.host));
  let inFlight: AbortController | undefined;
  let busy = false;
  /**
   * One step at a time: a second call while one runs is refused with `BUSY`. A stash left by a
   * server killed before its proposer ran holds the only copy of the agent's edit: it goes back
   * into the tree first.
   */
  const exclusive = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (busy) throw new McpToolError('BUSY', 'a loop step is already running in this workspace');
    busy = true;
    try {
      await restoreUnappliedEdit(dir);
      return await fn();
    } finally {
      busy = false;
    }
  };

  const configFile = (host: LoopMcpHost): string => {
    try {
      return host.findConfigFile(undefined, dir);
    } catch (error) {
      throw new McpToolError('NO_CONFIG', `no loop config in ${dir}: call loop_setup first (${(error as Error).message})`);
    }
  };
  const readRows = async (): Promise<HostResultsData | undefined> => {
    const host = await getHost();
    const source = await host.resolveResultsSource(dir, dir);
    return existsSync(source.results) ? host.readResultsOf(source) : undefined;
  };
  const step = async (loaded: HostLoadedConfig, proposer: HostLoadedConfig['config']['proposer'] | undefined, beforeRun: (run: HostConfiguredRun) => Promise<void>): Promise<StepResult> => {
    const host = await getHost();
    const before = await readRows();
    const last = before?.points.at(-1)?.iteration;
    // The agent's edit is evaluated as it is: no crash-repair calls (the agent repairs it itself, with the crash row in front of it).
    const config = { ...loaded.config, maxIterations: last === undefined ? 1 : last + 1, ...(proposer ? { proposer, maxRepairAttempts: 0 } : {}) };
    const controller = new AbortController();
    inFlight = controller;
    try {
      const configured = host.prepareRun({ ...loaded, config }, { resume: last !== undefined, signal: controller.signal, onWarning: () => {} });
      await beforeRun(configured);
      const summary = await configured.run.run();
      const after = (await readRows())?.points ?? [];
      const fresh = after.filter((p) => last === undefined || p.iteration > last);
      const row = fresh.filter((p) => p.kind !== 'baseline').at(-1);
      const baseline = fresh.find((p) => p.kind === 'baseline');
      const notEvaluated = proposer ? await restoreUnappliedEdit(dir) : false;
      return {
        evaluated: row !== undefined && !notEvaluated,
        decision: row && !notEvaluated ? row.status : 'not-evaluated',
        iteration: row?.iteration ?? null,
        score: row?.score ?? null,
        commit: row?.id ? (await (await import('@loop/rollback-git')).runGit({ cwd: dir }, ['rev-parse', `${row.id}^{commit}`])).trim() : '',
        best: summary.best,
        bestId: summary.bestId,
        ...(baseline ? { baseline: host.logEntries({ metric: '', points: [baseline] })[0]! } : {}),
        stop: summary.stop,
      };
    } finally {
      inFlight = undefined;
      if (proposer) await restoreUnappliedEdit(dir);
    }
  };

  return {
    dir,
    readConfig: async () => {
      const host = await getHost();
      let file: string;
      try {
        file = host.findConfigFile(undefined, dir);
      } catch {
        return undefined;
      }
      return { file, text: await readFile(file, 'utf8') };
    },
    writeConfig: async ({ file = 'loop.config.yaml', text, force = false }) => {
      const path = resolve(dir, file);
      if (relative(dir, path).startsWith('..')) throw new McpToolError('NO_CONFIG', `${file} is outside the workspace ${dir}`);
      const host = await getHost();
      if (text === undefined) await host.writeStarterConfig(path, 'auto-iterate', force);
      else {
        host.parseConfigText(text, path);
        if (existsSync(path) && !force) throw new McpToolError('NO_CONFIG', `${path} already exists; pass force: true to overwrite it`);
        await writeFile(path, text.endsWith('\n') ? text : `${text}\n`);
      }
      return { file: path, text: await readFile(path, 'utf8') };
    },
    evaluate: (description) => exclusive(async () => {
      const host = await getHost();
      const loaded = await host.loadConfig(configFile(host));
      const proposer = { type: 'agent', command: `${shellQuote(process.execPath)} ${shellQuote(APPLY_EDIT)} ${shellQuote(stashPath(dir))}`, goal: 'apply the edit the coding agent made (loop_evaluate)', timeoutS: 60, sandbox: 'none', writable: [], network: false };
      return step(loaded, proposer, async (configured) => {
        const stash = await stashAgentEdit(dir, description, configured.resolved.targetFiles);
        if (!stash) throw new McpToolError('NO_EDIT', `no uncommitted change in ${dir} to evaluate: edit the target files (${configured.resolved.targetFiles.join(', ')}) first`);
      });
    }),
    runIteration: () => exclusive(async () => {
      const host = await getHost();
      const file = configFile(host);
      const changes = await agentChanges(dir);
      if (changes.length > 0) throw new McpToolError('DIRTY_EDIT', `the tree has uncommitted changes (${changes.map((c) => c.path).join(', ')}): call loop_evaluate for an edit of the targets, or commit or revert them, before loop_run_iteration`);
      return step(await host.loadConfig(file), undefined, async () => {});
    }),
    status: async () => (await getHost()).readStatus(dir),
    rows: async (kinds = []) => {
      const data = await readRows();
      return data ? (await getHost()).logEntries(data, kinds) : [];
    },
    diff: async (iteration) => {
      const host = await getHost();
      const data = await host.readResultsOf(await host.resolveResultsSource(dir, dir));
      return host.diffIteration(dir, data, iteration);
    },
    resultsText: async () => {
      const host = await getHost();
      const source = await host.resolveResultsSource(dir, dir);
      return existsSync(source.results) ? readFile(source.results, 'utf8') : '';
    },
    plotSvg: async () => {
      const host = await getHost();
      const data = await host.readResultsOf(await host.resolveResultsSource(dir, dir));
      return host.renderPlotSvg(data, { direction: data.direction ?? host.inferDirection(data.points) });
    },
    stop: () => {
      if (!inFlight) return false;
      inFlight.abort();
      return true;
    },
  };
}

import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { HostIterationLog, HostLogEntry, HostPointKind, HostResultsData, LoopMcpHost } from './host.js';
import { McpToolError } from './errors.js';
import { createHostedSession } from './hosted-session.js';
import type { StepResult } from './step-result.js';

/** Options of {@link createLoopWorkspace}. */
export interface LoopWorkspaceOptions {
  /** The auto-iterate workspace (a git repository root holding the config). */
  readonly dir: string;
  /**
   * The cli functions (see {@link LoopMcpHost}), or a function that loads them: called once, at the
   * first tool call that needs them, so that the server answers `initialize` without loading the
   * loop engine (`loop mcp` passes a loader of `@loop/cli`'s `loopMcpHost`).
   */
  readonly host: LoopMcpHost | (() => Promise<LoopMcpHost>);
}

/** The operations the MCP tools call, on one workspace; one loop step at a time. */
export interface LoopWorkspace {
  /** The workspace (absolute). */
  readonly dir: string;
  /** The config file's text, or `undefined` when there is none. */
  readonly readConfig: () => Promise<{ file: string; text: string } | undefined>;
  /**
   * Writes `text` (validated first) or the auto-iterate starter config to `file` (default loop.config.yaml). @throws
   * when it exists and not `force`.
   */
  readonly writeConfig: (options: {
    file?: string;
    text?: string;
    force?: boolean;
  }) => Promise<{ file: string; text: string }>;
  /**
   * Evaluates the agent's uncommitted edit: kept (committed) if better, else reverted (tree restored); one row
   * appended. @throws `NO_EDIT` when nothing changed, `OUTSIDE_TARGETS` for a change outside the targets (nothing
   * touched).
   */
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
  /**
   * The kept log of iteration `iteration`'s run (`.loop/logs/<n>.log`; 0 the baseline; default the
   * last row's), its last `tailBytes` (default all). @throws when that log is not kept.
   */
  readonly log: (iteration?: number, tailBytes?: number) => Promise<HostIterationLog>;
  /**
   * Aborts the step in flight (the engine reverts its candidate and leaves the last kept state). @returns whether one
   * was running.
   */
  readonly stop: () => boolean;
  /**
   * At server exit: aborts the step in flight and waits for it, then stops the loop, so candidates
   * still running (async schedule) are abandoned (their runs killed, working copies removed) and
   * the lock released; a trial open for the agent's next edit is left open. Later calls are refused.
   */
  readonly close: () => Promise<void>;
}

/**
 * The workspace operations behind the MCP tools. The loop is driven as a host (see
 * `createHostedSession`): the cli's `prepareRun` builds the auto-iterate run (so the config's
 * harness, scorer, keep policy, guards and git rollback are the ones `loop run` uses) and its
 * `open()` gives the loop that `evaluate` drives with ask/tell and `runIteration` with `step()`.
 */
export function createLoopWorkspace(options: LoopWorkspaceOptions): LoopWorkspace {
  const dir = resolve(options.dir);
  let hostLoaded: Promise<LoopMcpHost> | undefined;
  const getHost = (): Promise<LoopMcpHost> =>
    (hostLoaded ??= typeof options.host === 'function' ? options.host() : Promise.resolve(options.host));
  let running: Promise<unknown> | undefined;
  let closed = false;
  /** One step at a time: a second call while one runs is refused with `BUSY`. */
  const exclusive = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (running) throw new McpToolError('BUSY', 'a loop step is already running in this workspace');
    if (closed) throw new McpToolError('BUSY', 'the MCP server is closing');
    const call = fn();
    running = call;
    try {
      return await call;
    } finally {
      running = undefined;
    }
  };

  const configFile = (host: LoopMcpHost): string => {
    try {
      return host.findConfigFile(undefined, dir);
    } catch (error) {
      throw new McpToolError(
        'NO_CONFIG',
        `no loop config in ${dir}: call loop_setup first (${(error as Error).message})`,
      );
    }
  };
  const readRows = async (): Promise<HostResultsData | undefined> => {
    const host = await getHost();
    const source = await host.resolveResultsSource(dir, dir);
    return existsSync(source.results) ? host.readResultsOf(source) : undefined;
  };
  const session = createHostedSession(dir, getHost, configFile);

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
      if (relative(dir, path).startsWith('..'))
        throw new McpToolError('NO_CONFIG', `${file} is outside the workspace ${dir}`);
      const host = await getHost();
      if (text === undefined) await host.writeStarterConfig(path, 'auto-iterate', force);
      else {
        host.parseConfigText(text, path);
        if (existsSync(path) && !force)
          throw new McpToolError('NO_CONFIG', `${path} already exists; pass force: true to overwrite it`);
        await writeFile(path, text.endsWith('\n') ? text : `${text}\n`);
      }
      return { file: path, text: await readFile(path, 'utf8') };
    },
    evaluate: (description) => exclusive(() => session.evaluate(description)),
    runIteration: () => exclusive(() => session.runIteration()),
    status: async () => (await getHost()).readStatus(dir),
    rows: async (kinds = []) => {
      const data = await readRows();
      if (!data) return [];
      const host = await getHost();
      const entries = host.logEntries(data, kinds);
      return host.withRowMetrics ? host.withRowMetrics(dir, entries) : entries;
    },
    diff: async (iteration) => {
      const host = await getHost();
      const data = await host.readResultsOf(await host.resolveResultsSource(dir, dir));
      return host.diffIteration(dir, data, iteration);
    },
    log: async (iteration, tailBytes) => {
      const n = iteration ?? (await readRows())?.points.at(-1)?.iteration;
      if (n === undefined) throw new McpToolError('NO_LOG', `no run in ${dir} yet: no log to read`);
      return (await getHost()).readIterationLog(dir, n, tailBytes);
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
    stop: () => session.stop(),
    close: async () => {
      closed = true;
      session.stop();
      await running?.catch(() => undefined);
      await session.close();
    },
  };
}

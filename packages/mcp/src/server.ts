import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { ROW_KINDS, type HostPointKind, type LoopMcpHost } from './host.js';
import { createLoopWorkspace, type LoopWorkspace } from './workspace.js';

/** Each server's workspace, so {@link serveLoopMcp} can close it when the client goes. */
const workspaces = new WeakMap<McpServer, LoopWorkspace>();

/** The tools the server registers, in the order `tools/list` shows them. */
export const LOOP_MCP_TOOLS = [
  'loop_setup',
  'loop_evaluate',
  'loop_run_iteration',
  'loop_status',
  'loop_rows',
  'loop_diff',
  'loop_log',
  'loop_stop',
] as const;

/** The resources: results.tsv and the progress plot. */
export const LOOP_MCP_RESOURCES = { results: 'loop://results.tsv', plot: 'loop://plot.svg' } as const;

/** Options of {@link createLoopMcpServer}. */
export interface LoopMcpServerOptions {
  /** The auto-iterate workspace. */
  readonly dir: string;
  /**
   * The cli functions (`@loop/cli`'s `loopMcpHost`), or a function that loads them at the first tool call
   * that needs them (`loop mcp` passes a loader of `loopMcpHost`: `initialize` is answered
   * without loading the loop engine).
   */
  readonly host: LoopMcpHost | (() => Promise<LoopMcpHost>);
  /** The version the server reports. @default '0.1.0' */
  readonly version?: string;
}

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

const json = (value: unknown): ToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] });

/**
 * Runs a tool body; an error becomes an `isError` result `error [CODE]: message` (the agent reads it, the server stays
 * up).
 */
async function tool(body: () => Promise<unknown>): Promise<ToolResult> {
  try {
    return json(await body());
  } catch (error) {
    const e = error as Error & { code?: unknown };
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: `error${typeof e.code === 'string' ? ` [${e.code}]` : ''}: ${e.message ?? String(error)}`,
        },
      ],
    };
  }
}

function registerTools(server: McpServer, ws: LoopWorkspace): void {
  server.registerTool(
    'loop_setup',
    {
      title: 'Set up or read the loop config',
      description:
        "Without arguments: returns the workspace's loop config (file and text). " +
        'With write: true: writes `text` (a loop.config.yaml, validated first) ' +
        'or, without text, the commented auto-iterate starter config, then ' +
        'returns it. Commit the config before the first loop_evaluate.',
      inputSchema: {
        write: z.boolean().optional().describe('Write a config instead of reading it.'),
        text: z.string().optional().describe('The YAML to write (validated; with write: true).'),
        file: z.string().optional().describe('The config file, relative to the workspace. Default loop.config.yaml.'),
        force: z.boolean().optional().describe('Overwrite an existing file.'),
      },
    },
    ({ write, text, file, force }) =>
      tool(async () => {
        if (write)
          return ws.writeConfig({
            ...(file !== undefined ? { file } : {}),
            ...(text !== undefined ? { text } : {}),
            ...(force !== undefined ? { force } : {}),
          });
        return (
          (await ws.readConfig()) ?? {
            file: null,
            text: null,
            hint: 'no loop config yet: call loop_setup with write: true',
          }
        );
      }),
  );
  server.registerTool(
    'loop_evaluate',
    {
      title: 'Evaluate my edit',
      description:
        'You are the proposer: make ONE focused edit to the target files (do not ' +
        'commit it), then call this. The loop runs the configured harness on it ' +
        'in place; if the score is better it is kept (committed on the run ' +
        'branch), otherwise it is reverted (the tree is restored to the last kept ' +
        'state). One row is appended to results.tsv. Returns decision (keep / ' +
        'discard / crash / a rejection), score, best, bestId and the commit; a ' +
        'crash also returns its reason and logTail (the end of the run log; ' +
        'loop_log reads all of it); stop only when the loop stopped. The first ' +
        'call also measures the baseline.',
      inputSchema: {
        description: z.string().min(1).describe("One line: what the edit tries (it becomes the row's description)."),
      },
    },
    ({ description }) => tool(() => ws.evaluate(description)),
  );
  server.registerTool(
    'loop_run_iteration',
    {
      title: 'Run one iteration',
      description:
        'Runs one iteration with the proposer configured in loop.config.yaml ' +
        '(mutator, tpe or agent command): propose, evaluate, keep or revert, one ' +
        'row. The tree must hold no unevaluated edit.',
    },
    () => tool(() => ws.runIteration()),
  );
  server.registerTool(
    'loop_status',
    {
      title: 'Run status',
      description:
        'Where the run stands: state.json (iteration, best, stop reason), the ' +
        'rows, whether a loop holds the workspace lock (loop status --json).',
    },
    () => tool(() => ws.status()),
  );
  server.registerTool(
    'loop_rows',
    {
      title: 'Results rows',
      description:
        'The rows of results.tsv (iteration, kind, status, score, commit id, ' +
        'description, named metrics, broken constraints), optionally only some ' +
        'classes.',
      inputSchema: {
        status: z
          .array(z.enum(ROW_KINDS as [HostPointKind, ...HostPointKind[]]))
          .optional()
          .describe('Only rows of these classes: baseline, keep, discard, crash, halted.'),
      },
    },
    ({ status }) => tool(() => ws.rows(status ?? [])),
  );
  server.registerTool(
    'loop_diff',
    {
      title: "An iteration's change",
      description:
        'The change iteration N tried, kept or discarded, from git (loop diff N --json): commit, ref, and the patch.',
      inputSchema: { iteration: z.number().int().nonnegative().describe('The iteration number (0 is the baseline).') },
    },
    ({ iteration }) => tool(() => ws.diff(iteration)),
  );
  server.registerTool(
    'loop_log',
    {
      title: "An iteration's run log",
      description:
        "The output (stdout and stderr) of iteration N's harness run, as kept in " +
        '.loop/logs/<N>.log (loop log --output N): the place to read why a run ' +
        "crashed. Default: the last row's.",
      inputSchema: {
        iteration: z
          .number()
          .int()
          .nonnegative()
          .optional()
          .describe('The iteration number (0 is the baseline). Default the last row.'),
        tailBytes: z
          .number()
          .int()
          .positive()
          .optional()
          .describe("Only the log's last bytes (from a line start). Default all."),
      },
    },
    ({ iteration, tailBytes }) => tool(() => ws.log(iteration, tailBytes)),
  );
  server.registerTool(
    'loop_stop',
    {
      title: 'Stop the step in flight',
      description:
        'Aborts the loop step in flight: its candidate is reverted and the ' +
        'workspace is left at the last kept state. Returns whether a step was ' +
        'running.',
    },
    () => tool(async () => ({ stopped: ws.stop() })),
  );
}

/**
 * The MCP server of one auto-iterate workspace: tools {@link LOOP_MCP_TOOLS} and resources
 * {@link LOOP_MCP_RESOURCES}; not yet connected (see {@link serveLoopMcp}).
 */
export function createLoopMcpServer(options: LoopMcpServerOptions): McpServer {
  const ws = createLoopWorkspace({ dir: options.dir, host: options.host });
  const server = new McpServer(
    { name: 'loop', version: options.version ?? '0.1.0' },
    {
      instructions:
        `A keep/revert optimisation loop on the workspace ${ws.dir}. Edit the ` +
        `target files, then call loop_evaluate: the loop keeps the edit only if ` +
        `the score improves and reverts it otherwise. loop_rows and the ` +
        `loop://results.tsv resource show every attempt.`,
    },
  );
  registerTools(server, ws);
  workspaces.set(server, ws);
  server.registerResource(
    'results',
    LOOP_MCP_RESOURCES.results,
    {
      title: 'results.tsv',
      description: 'Every iteration: commit score status description',
      mimeType: 'text/tab-separated-values',
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/tab-separated-values', text: await ws.resultsText() }],
    }),
  );
  server.registerResource(
    'plot',
    LOOP_MCP_RESOURCES.plot,
    {
      title: 'Progress plot',
      description: 'The progress plot of loop report (SVG): every row, kept ones labelled, the running best',
      mimeType: 'image/svg+xml',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/svg+xml', text: await ws.plotSvg() }] }),
  );
  return server;
}

/**
 * Serves {@link createLoopMcpServer} over stdio until the client closes stdin (or the first SIGTERM
 * or SIGINT; a second one exits at once), then stops the workspace's loop: a step in flight is
 * aborted, candidates still running (async schedule) are killed and their working copies removed,
 * and the lock is released. Nothing else may write to stdout meanwhile (it carries the protocol).
 */
export async function serveLoopMcp(options: LoopMcpServerOptions): Promise<void> {
  const server = createLoopMcpServer(options);
  const transport = new StdioServerTransport();
  let signals = 0;
  let onSignal = (_signal: NodeJS.Signals) => {};
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    // The first SIGTERM or Ctrl-C closes as stdin's end does; a second one exits at once. The listener
    // stays registered through the close: a library's signal-exit hook (the lock's) re-raises a signal
    // that no other listener handles, which would kill the process before the loop is stopped.
    onSignal = (signal) => {
      signals += 1;
      if (signals > 1) process.exit(signal === 'SIGINT' ? 130 : 143);
      resolve();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  await server.connect(transport);
  await closed;
  try {
    // Candidates still running (async schedule) are stopped with the server, not left to the next run.
    await workspaces.get(server)?.close();
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
  await server.close();
}

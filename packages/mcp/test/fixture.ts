// The real `loop mcp` (the cli's src/main.ts under tsx, as `pnpm loop` runs it) on a real
// temporary git workspace whose harness is instant (node eval.mjs prints `score: <x>` from
// config.json; lower is better), driven by the SDK's own Client over StdioClientTransport.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, watch, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const CLI_MAIN = fileURLToPath(new URL('../../cli/src/main.ts', import.meta.url));

export const CONFIG = `dir: .
targetFiles: [config.json]
readOnlyFiles: [eval.mjs]
runCommand: node eval.mjs
metricName: score
direction: lower
timeBudgetS: 30
killTimeoutS: 60
maxIterations: 0
proposer:
  type: mutator
  file: config.json
  seed: 1
  space:
    x: { min: 0, max: 10 }
`;
// "slow": true makes the run announce itself in $MARK and never end on its own; a config that is
// not JSON makes it print a line to stderr and exit 1.
export const EVAL = `import { readFileSync, writeFileSync } from 'node:fs';
const text = readFileSync('config.json', 'utf8');
let config;
try {
  config = JSON.parse(text);
} catch (error) {
  console.log('reading config.json');
  console.error('eval: config.json is not JSON: ' + JSON.stringify(text));
  process.exit(1);
}
if (config.slow) {
  writeFileSync(process.env.MARK, 'started');
  setInterval(() => {}, 1000);
} else console.log('score: ' + config.x);
`;

/** A committed workspace: config.json `{"x": 5}`, eval.mjs, loop.config.yaml (`config` appended to {@link CONFIG}). */
export function makeWorkspace(extraConfig = ''): string {
  const ws = mkdtempSync(join(tmpdir(), 'loop-mcp-'));
  writeFileSync(join(ws, 'config.json'), '{"x": 5}\n');
  writeFileSync(join(ws, 'eval.mjs'), EVAL);
  writeFileSync(join(ws, 'loop.config.yaml'), `${CONFIG}${extraConfig}`);
  const git = gitIn(ws);
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  return ws;
}

/** git in `ws`, output trimmed. */
export const gitIn =
  (ws: string) =>
  (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, encoding: 'utf8' }).trim();

/** A connected client of a fresh `loop mcp --dir ws`; `pid` is the server's process. */
export async function startServer(
  ws: string,
): Promise<{ client: Client; pid: number; transport: StdioClientTransport }> {
  const client = new Client({ name: 'loop-mcp-test', version: '0.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', TSX, '--conditions=source', CLI_MAIN, 'mcp', '--dir', ws],
    cwd: ws,
    env: { ...(process.env as Record<string, string>), CI: '1' },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return { client, pid: transport.pid!, transport };
}

/** Calls a tool; returns its JSON result, or throws with the tool's error text. */
export async function callOn<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[];
    isError?: boolean;
  };
  const text = result.content[0]!.text;
  if (result.isError) throw new Error(text);
  return JSON.parse(text) as T;
}

/** Resolves once `path` exists (fs.watch on its folder, no polling). */
export function fileAppears(path: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dirname(path), () => {
      if (existsSync(path)) {
        watcher.close();
        resolve();
      }
    });
    if (existsSync(path)) {
      watcher.close();
      resolve();
    }
  });
}

/** A real `loop run` in `ws` (the cli's main under tsx, output ignored): another process holding the workspace. */
export function startLoopRun(ws: string): ChildProcess {
  return spawn(process.execPath, ['--import', TSX, '--conditions=source', CLI_MAIN, 'run'], {
    cwd: ws,
    env: { ...(process.env as Record<string, string>), CI: '1' },
    stdio: 'ignore',
  });
}

// Start-up cost of `loop` (issue 32 item 12): each command loads only its own modules. The evidence
// is the module graph a real `node` child process loads, recorded by a module `load` hook
// (node:module register) into a file: no timing is asserted. The sources run with tsx; the built
// CLI (bin/loop.js) too when it is built and LOOP_PACK_TEST=1 (CI builds before the tests).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN_TS = join(REPO, 'packages/cli/src/main.ts');
const BIN = join(REPO, 'packages/cli/bin/loop.js');
const BUILT = process.env['LOOP_PACK_TEST'] === '1' && existsSync(join(REPO, 'packages/cli/dist/main.js'));

/** What `loop --version` must not load: every other package and every heavy library. */
const HEAVY = [
  '/packages/core/',
  '/packages/auto-iterate/',
  '/packages/autoresearch/',
  '/packages/autotune/',
  '/packages/collie/',
  '/packages/evaluators/',
  '/packages/mcp/',
  '/packages/rollback-git/',
  '/packages/rollback-snapshot/',
  '/packages/workers-bullmq/',
  '/zod/',
  '/yaml/',
  '/isomorphic-git/',
  '/vega',
  '/hono/',
  '/@hono/',
  '/bullmq/',
  '/@modelcontextprotocol/',
  '/log-update/',
  '/jiti/',
];

let tmp: string;
let hook: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'loop-startup-'));
  hook = join(tmp, 'record-loads.mjs');
  // Registered after tsx, so it runs first in the hook chain and sees every module load.
  const hookBody =
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) { appendFileSync(process.env.LOOP_LOAD_LOG, url + '\\n'); return ` +
    `next(url, context); }`;
  writeFileSync(
    hook,
    `import { register } from ` +
      `'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hookBody)}`)});\n`,
  );
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Started {
  /** The module URLs loaded, in order (node: built-ins left out). */
  loaded: () => string[];
  /** The child's stdout so far. */
  stdout: () => string;
  /** Resolves once stdout matches `pattern`; rejects if the child exits first. */
  waitFor: (pattern: RegExp) => Promise<void>;
  /** Writes to the child's stdin. */
  write: (text: string) => void;
  done: Promise<number | null>;
  kill: () => void;
}

/** Starts `loop <args>` (the sources with tsx, or the built bin) recording every module it loads. */
function start(args: string[], built: boolean, name: string): Started {
  const log = join(tmp, `${name}-${built ? 'built' : 'source'}.log`);
  writeFileSync(log, '');
  const nodeArgs = built
    ? ['--import', hook, BIN]
    : ['--import', 'tsx', '--conditions=source', '--import', hook, MAIN_TS];
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    cwd: REPO,
    env: { ...process.env, NODE_OPTIONS: '', LOOP_LOAD_LOG: log },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiters.splice(0))
      if (w.pattern.test(out)) w.resolve();
      else waiters.push(w);
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  void done.then((code) => code !== 0 && code !== null && console.error(err));
  return {
    loaded: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((u) => u && !u.startsWith('node:')),
    stdout: () => out,
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(out)) return resolve();
        waiters.push({ pattern, resolve });
        void done.then((code) => reject(new Error(`loop exited ${code} before printing ${pattern}: ${err}`)));
      }),
    write: (text) => void child.stdin.write(text),
    done,
    kill: () => child.kill('SIGKILL'),
  };
}

const heavyIn = (urls: string[]) => urls.filter((u) => HEAVY.some((h) => u.includes(h)));

const MODES = BUILT ? [false, true] : [false];

describe.each(MODES)('loop start-up loads only the modules of its command (built: %s)', (built) => {
  it('loop --version loads commander and no other package, no command module', async () => {
    const run = start(['--version'], built, 'version');
    expect(await run.done).toBe(0);
    expect(run.stdout().trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const loaded = run.loaded();
    expect(loaded.some((u) => u.includes('/commander/'))).toBe(true); // the hook saw the graph
    expect(heavyIn(loaded)).toEqual([]);
    // No command's implementation: running, reading rows, plotting, collie, the dashboard, MCP, workers.
    const commandModules = loaded.filter((u) =>
      new RegExp(
        String.raw`\/cli\/(src|dist)\/(run|run-command|progress|status|status-command|init|` +
          String.raw`init-command|load-config|report\/\w+|read\/(log|results-source` +
          String.raw`|diff)|collie\/(load|status|init)|dashboard\/server|preset` +
          String.raw`s\/\w+)\.(ts|js)$`,
      ).test(u),
    );
    expect(commandModules).toEqual([]);
  });

  it('loop log <results.tsv> loads neither the plot (vega), collie, MCP, the dashboard nor the workers', async () => {
    const ws = mkdtempSync(join(tmp, 'log-'));
    writeFileSync(
      join(ws, 'results.tsv'),
      'commit\tscore\tstatus\tdescription\nabc1234\t1.5\tkeep\tbaseline\nbcd2345\t1.2\tkeep\tlr 0.1\n',
    );
    const run = start(['log', join(ws, 'results.tsv')], built, 'log');
    expect(await run.done).toBe(0);
    expect(run.stdout()).toContain('lr 0.1');
    const loaded = run.loaded();
    const notForLog = [
      '/vega',
      '/packages/collie/',
      '/packages/mcp/',
      '/@modelcontextprotocol/',
      '/hono/',
      '/packages/workers-bullmq/',
      '/bullmq/',
      '/log-update/',
    ];
    expect(loaded.filter((u) => notForLog.some((h) => u.includes(h)))).toEqual([]);
  });

  it(
    'loop mcp answers initialize without loading the loop engine ' + '(auto-iterate, git, collie, plot, workers)',
    async () => {
      const ws = mkdtempSync(join(tmp, 'mcp-'));
      const run = start(['mcp', '--dir', ws], built, 'mcp');
      try {
        const init = {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'startup-test', version: '1' },
          },
        };
        run.write(`${JSON.stringify(init)}\n`);
        await run.waitFor(/"id":1/);
        expect(run.stdout()).toContain('"serverInfo"');
        const loaded = run.loaded();
        expect(loaded.some((u) => u.includes('/@modelcontextprotocol/'))).toBe(true);
        const notForInitialize = [
          '/packages/auto-iterate/',
          '/packages/collie/',
          '/packages/autoresearch/',
          '/packages/autotune/',
          '/packages/rollback-git/',
          '/isomorphic-git/',
          '/vega',
          '/hono/',
          '/packages/workers-bullmq/',
          '/yaml/',
          '/log-update/',
        ];
        expect(loaded.filter((u) => notForInitialize.some((h) => u.includes(h)))).toEqual([]);
      } finally {
        run.kill();
        await run.done.catch(() => null);
      }
    },
  );
});

/**
 * The fixed cost of one iteration on an instant harness (issue 31 item 2): `echo "score: 1"`,
 * every candidate discarded, interleaved cycle by cycle with a bare spawn that writes the same log:
 *
 * - `bare spawn`: `spawn('sh', ['-c', 'echo "score: 1"'])`, stdout and stderr to a log file,
 *   waiting for `exit` (no process group, no fsync);
 * - `bare + durable row and state`: the bare spawn, then what the guarantees need at least, written
 *   by hand on sync `node:fs`: the row appended and fsynced, state.json as a temp file written,
 *   fsynced, renamed, the directory fsynced (three fsyncs, the floor of "durable rows and state");
 * - `runInGroupToLog`: core's process layer alone (process group, cgroup, run token, pid file,
 *   the log synced), the way the command harness calls it;
 * - `command harness`: `createCommandHarness(...).run()` with auto-iterate's options (pid file slot
 *   and its orphan sweep, kept logs);
 * - `engine iteration`: one whole iteration of core's engine with that harness, the regex scorer,
 *   auto-iterate's fsynced results.tsv and the atomic state.json (write, fsync, rename, directory
 *   fsync, re-read), events, with an in-memory artifact and rollback (the git side is the
 *   change-detection bench's): timed from releasing the held proposer to the next `propose` call.
 *
 * Prints median/min/max of each variant's time and of the per-cycle ratios to the bare spawn and to
 * the bare spawn with the durable writes, and the load. `LOOP_CGROUP=off` measures without per-run
 * cgroups. It measures, it does not assert.
 * `npx tsx --conditions=source bench/fixed-cost.bench.ts [cycles]` (default 60).
 */
import { spawn } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCommandHarness,
  createFunctionProposer,
  createLoop,
  createMemoryArtifact,
  createMemoryRollback,
  createRegexScorer,
} from '@loop/core';
import { runInGroupToLog } from '@loop/core/process';
import { formatRatio, formatTime, interleave, loadLine, pairRatios, timeOf } from '@loop/internal-test-utils/bench';
import { createResultsTsv } from '../src/index.js';

const CYCLES = Number(process.argv[2] ?? 60);
const COMMAND = 'echo "score: 1"';
const root = mkdtempSync(join(tmpdir(), 'loop-fixed-cost-'));
const dirOf = (name: string) => {
  const dir = join(root, name);
  mkdirSync(join(dir, '.loop'), { recursive: true });
  return dir;
};

const bareDir = dirOf('bare');
const bare = () =>
  new Promise<void>((resolve, reject) => {
    const fd = openSync(join(bareDir, 'run.log'), 'w');
    const child = spawn('sh', ['-c', COMMAND], { cwd: bareDir, stdio: ['ignore', fd, fd] });
    child.once('error', reject);
    child.once('exit', () => {
      closeSync(fd);
      resolve();
    });
  });

const floorDir = dirOf('floor');
let floorRows = 0;
const syncFile = (path: string, flags: string, text?: string) => {
  const fd = openSync(path, flags);
  try {
    if (text !== undefined) writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};
const floor = async () => {
  await bare();
  floorRows += 1;
  syncFile(join(floorDir, 'results.tsv'), 'a', `-\t1\tdiscard\tbump n ${floorRows}\n`);
  const state = join(floorDir, '.loop/state.json');
  syncFile(`${state}.tmp`, 'w', `${JSON.stringify({ version: 1, iteration: floorRows, best: 1 }, null, 2)}\n`);
  renameSync(`${state}.tmp`, state);
  syncFile(join(floorDir, '.loop'), 'r');
};

const groupDir = dirOf('group');
const signal = new AbortController().signal;
const grouped = () =>
  runInGroupToLog({
    logPath: join(groupDir, 'run.log'),
    command: COMMAND,
    cwd: groupDir,
    env: process.env,
    killTimeoutMs: 60_000,
    graceMs: 5000,
    pidFile: join(groupDir, '.loop/run.pgid'),
  });

const harnessOptions = (dir: string) => ({
  command: COMMAND,
  cwd: dir,
  logFile: 'run.log',
  timeBudgetMs: 60_000,
  killTimeoutMs: 90_000,
  pidFile: join(dir, '.loop/run.pgid'),
  keepLogs: { dir: join(dir, '.loop/logs'), count: 20 },
});
const harnessDir = dirOf('harness');
const harness = createCommandHarness(harnessOptions(harnessDir));
let harnessIteration = 0;
const harnessRun = () => harness.run({ iteration: (harnessIteration += 1), signal });

/** A core engine run held at each `propose` call; `step()` lets one iteration through. */
async function startHeldEngine(dir: string) {
  let go: (() => void) | undefined;
  let arrived: (() => void) | undefined;
  let arrival = new Promise<void>((resolve) => (arrived = resolve));
  const controller = new AbortController();
  const artifact = createMemoryArtifact({ n: 0 });
  const proposer = createFunctionProposer('bench', async () => {
    await new Promise<void>((resolve) => {
      go = resolve;
      arrived!();
    });
    artifact.set({ n: artifact.get().n + 1 });
    return { description: 'bump n' };
  });
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer,
    harness: createCommandHarness(harnessOptions(dir)),
    scorer: createRegexScorer({ pattern: '^score:\\s*(\\S+)', direction: 'minimize' }),
    results: createResultsTsv({ path: join(dir, 'results.tsv') }),
    files: { statePath: join(dir, '.loop/state.json') },
    signal: controller.signal,
  });
  const done = loop.run();
  await arrival;
  return {
    step: async () => {
      arrival = new Promise<void>((resolve) => (arrived = resolve));
      go!();
      await arrival;
    },
    stop: async () => {
      controller.abort();
      go!();
      await done.catch(() => undefined);
    },
  };
}

const engine = await startHeldEngine(dirOf('engine'));
const variants = {
  'bare spawn': bare,
  'bare + durable row and state': floor,
  runInGroupToLog: grouped,
  'command harness': harnessRun,
  'engine iteration': engine.step,
};
const result = await interleave(variants, { cycles: CYCLES, warmup: 3 });
await engine.stop();
rmSync(root, { recursive: true, force: true });

const cgroup = process.env.LOOP_CGROUP ?? 'default';
console.log(
  `\n@loop/auto-iterate: fixed cost of an iteration on \`${COMMAND}\` ` +
    `(${CYCLES} interleaved cycles; ${process.version}; ` +
    `LOOP_CGROUP=${cgroup})`,
);
console.log(loadLine(result.load));
console.log('| variant | ms median (min-max) | / bare spawn, per cycle | / bare + durable row and state, per cycle |');
console.log('| --- | ---: | ---: | ---: |');
for (const name of Object.keys(variants)) {
  const toBare = formatRatio(pairRatios(result, name, 'bare spawn'));
  const toFloor = formatRatio(pairRatios(result, name, 'bare + durable row and state'));
  console.log(`| ${name} | ${formatTime(timeOf(result, name), 2)} | ${toBare} | ${toFloor} |`);
}

/**
 * Itemises where one auto-iterate iteration (issue 13) spends its file-system work: the same
 * held run as change-detection.bench.ts (instant harness, every candidate discarded), with every
 * `node:fs` call counted per iteration (lstat, readdir, reads and writes with their bytes, opens,
 * fsyncs, renames, unlinks), grouped by what is touched (the index, refs, objects, lock files,
 * results.tsv, state.json, the working tree). Not a benchmark: the counters cost time. Use it with
 * `node --cpu-prof` to see the CPU side.
 *
 * `npx tsx --conditions=source bench/profile-iteration.ts [files] [iterations] [edited]`
 * (defaults 20000, 10, 1); `PROFILE_COUNT=0` leaves `node:fs` unpatched (for timing), `PROFILE_CPU=<file>` writes
 * a V8 CPU profile (`.cpuprofile`) of the counted iterations only.
 */
import nodeFs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { syncBuiltinESMExports } from 'node:module';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFunctionProposer } from '@loop/core';
import { createAutoIterate } from '../src/index.js';

const files = Number(process.argv[2] ?? 20000);
const iterations = Number(process.argv[3] ?? 10);
const edited = Number(process.argv[4] ?? 1);
const PER_DIRECTORY = 100;

const counts = new Map<string, { n: number; bytes: number }>();
let counting = false;
const kindOf = (path: unknown): string => {
  const p = String(path);
  if (p.includes('/.git/')) {
    const rel = p.slice(p.indexOf('/.git/') + 6);
    if (rel.endsWith('.lock')) return `.git lock ${rel.startsWith('refs/') ? 'ref' : rel.replace(/\.lock$/, '')}`;
    if (rel === 'index') return '.git index';
    if (rel.startsWith('objects/')) return '.git objects';
    if (rel.startsWith('refs/') || rel === 'HEAD') return '.git refs/HEAD';
    return `.git ${rel}`;
  }
  if (p.endsWith('results.tsv')) return 'results.tsv';
  if (p.includes('/.loop/')) return `.loop/${p.slice(p.indexOf('/.loop/') + 7)}`;
  if (p.endsWith('/.git')) return '.git (dir)';
  return 'worktree';
};
const count = (op: string, path: unknown, bytes = 0) => {
  if (!counting) return;
  if (process.env.PROFILE_TRACE && process.env.PROFILE_TRACE.split(',').includes(op)) console.error(op, String(path));
  const key = `${op} ${kindOf(path)}`;
  const c = counts.get(key) ?? { n: 0, bytes: 0 };
  c.n += 1;
  c.bytes += bytes;
  counts.set(key, c);
};
const sizeOf = (data: unknown) =>
  typeof data === 'string' ? Buffer.byteLength(data) : ((data as Uint8Array | undefined)?.byteLength ?? 0);

const fsAny = nodeFs as unknown as Record<string, (...a: unknown[]) => unknown>;
const patch = process.env.PROFILE_COUNT !== '0';
if (patch)
  for (const name of [
    'lstatSync',
    'statSync',
    'readdirSync',
    'readFileSync',
    'writeFileSync',
    'openSync',
    'fsyncSync',
    'renameSync',
    'unlinkSync',
  ]) {
    const original = fsAny[name]!;
    fsAny[name] = function (this: unknown, ...a: unknown[]) {
      count(name, a[0], name === 'writeFileSync' ? sizeOf(a[1]) : 0);
      return original.apply(this, a);
    };
  }
const promisesAny = nodeFs.promises as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
if (patch)
  for (const name of [
    'lstat',
    'stat',
    'readdir',
    'readFile',
    'writeFile',
    'open',
    'rename',
    'unlink',
    'mkdir',
    'rmdir',
    'appendFile',
  ]) {
    const original = promisesAny[name]!;
    promisesAny[name] = async function (this: unknown, ...a: unknown[]) {
      const result = await original.apply(this, a);
      const bytes =
        name === 'writeFile' || name === 'appendFile' ? sizeOf(a[1]) : name === 'readFile' ? sizeOf(result) : 0;
      count(`${name}${name === 'open' ? `(${String(a[1])})` : ''}`, a[0], bytes);
      if (name === 'open') (result as { __path?: unknown }).__path = a[0];
      return result;
    };
  }
const handle = await nodeFs.promises.open(tmpdir(), 'r');
const proto = Object.getPrototypeOf(handle) as Record<string, (...a: unknown[]) => Promise<unknown>>;
await handle.close();
if (patch)
  for (const name of ['writeFile', 'write', 'sync', 'datasync', 'readFile', 'appendFile']) {
    const original = proto[name]!;
    proto[name] = async function (this: { __path?: unknown }, ...a: unknown[]) {
      count(
        `handle.${name}`,
        this.__path,
        name === 'writeFile' || name === 'write' || name === 'appendFile' ? sizeOf(a[0]) : 0,
      );
      return original.apply(this, a);
    };
  }
syncBuiltinESMExports();

const identity = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];
const git = (cwd: string, ...args: string[]) => execFileSync('git', [...identity, ...args], { cwd, stdio: 'ignore' });
const targets = Array.from(
  { length: 10 },
  (_, i) => `d${String(Math.floor((i * files) / 10 / PER_DIRECTORY)).padStart(4, '0')}/t${i}.txt`,
);
const root = mkdtempSync(join(tmpdir(), `loop-ai-profile-${files}-`));
const source = join(root, 'source');
for (let d = 0; d * PER_DIRECTORY < files; d += 1) {
  const sub = join(source, `d${String(d).padStart(4, '0')}`);
  mkdirSync(sub, { recursive: true });
  for (let i = 0; i < PER_DIRECTORY && d * PER_DIRECTORY + i < files; i += 1)
    writeFileSync(join(sub, `f${i}.txt`), `file ${d}/${i}\n`);
}
for (const t of targets) writeFileSync(join(source, t), 'target\n');
git(source, 'init', '-q', '-b', 'main');
git(source, 'add', '-A');
git(source, '-c', 'gc.auto=0', 'commit', '-q', '-m', 'initial');
// Measured on a clone through the pack transport: packed, as a user's cloned repository is
// (see change-detection.bench.ts).
const dir = join(root, 'repo');
execFileSync('git', ['clone', '-q', '--no-local', source, dir], { stdio: 'ignore' });

let go: ((n: number) => void) | undefined;
let arrived: (() => void) | undefined;
let arrival = new Promise<void>((resolve) => (arrived = resolve));
let edits = 0;
const controller = new AbortController();
const proposer = createFunctionProposer('profile', async () => {
  const n = await new Promise<number>((resolve) => {
    go = resolve;
    arrived!();
  });
  edits += 1;
  for (const t of targets.slice(0, n)) writeFileSync(join(dir, t), `edit ${edits}\n`);
  mark('proposed');
  return { description: `edit ${n}` };
});
const run = createAutoIterate({
  dir,
  tag: 'profile',
  files: { targetFiles: targets },
  run: { command: 'echo score: 1', timeBudgetS: 60, killTimeoutS: 90 },
  score: { metricName: 'score', direction: 'minimize' },
  stop: { maxIterations: 0 },
  proposer,
  signal: controller.signal,
});
const spent = new Map<string, number>();
/** Time from one mark to the next, summed by (from, to) pair: where an iteration's wall time goes. */
const gaps = new Map<string, number>();
let lastMark: { name: string; at: number } | undefined;
const mark = (name: string) => {
  const at = performance.now();
  if (counting && lastMark !== undefined)
    gaps.set(`${lastMark.name} -> ${name}`, (gaps.get(`${lastMark.name} -> ${name}`) ?? 0) + at - lastMark.at);
  lastMark = { name, at };
};
const r = run.rollback as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
for (const name of ['checkpoint', 'changedPaths', 'commit', 'revert', 'keep']) {
  const original = r[name]!;
  r[name] = async (...a: unknown[]) => {
    const t = performance.now();
    mark(`${name} start`);
    try {
      return await original(...a);
    } finally {
      mark(`${name} end`);
      if (counting) spent.set(name, (spent.get(name) ?? 0) + performance.now() - t);
    }
  };
}
const done = run.run();
await arrival;
const step = async (n: number) => {
  arrival = new Promise<void>((resolve) => (arrived = resolve));
  mark('propose');
  go!(n);
  await arrival;
};
for (let i = 0; i < 3; i += 1) await step(edited); // warm-up: caches filled, stat data refreshed
const cpuProfile = process.env.PROFILE_CPU;
const session = cpuProfile ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
}
counting = true;
const started = performance.now();
for (let i = 0; i < iterations; i += 1) await step(edited);
const ms = (performance.now() - started) / iterations;
counting = false;
if (session) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(cpuProfile!, JSON.stringify(profile));
  session.disconnect();
}
controller.abort();
go!(0);
await done.catch(() => undefined);
rmSync(root, { recursive: true, force: true });

console.log(
  `${files} files, ${edited} file(s) edited: ${ms.toFixed(1)} ms per iteration (counted, so slower than the bench)`,
);
console.log(
  'rollback ms per iteration:',
  Object.fromEntries([...spent].map(([k, v]) => [k, Number((v / iterations).toFixed(1))])),
);
console.log(
  'wall ms per iteration between marks:',
  Object.fromEntries([...gaps].map(([k, v]) => [k, Number((v / iterations).toFixed(1))])),
);
console.log('| fs call, target | per iteration | bytes per iteration |');
console.log('| --- | ---: | ---: |');
for (const [key, c] of [...counts].sort((a, b) => b[1].n - a[1].n))
  console.log(
    `| ${key} | ${(c.n / iterations).toFixed(1)} | ${c.bytes === 0 ? '' : Math.round(c.bytes / iterations)} |`,
  );

// Issue 12 (Done when): one checkpoint/keep/revert cycle of core's engine over each snapshot store
// of this package runs in a child process on real files (test/fixtures/fault-cycle.ts). A first
// run counts the package's fs writes; then, for EVERY write index k, the child is (a) SIGKILLed at
// write k (a copy torn half-way first) and (b) handed ENOSPC at write k; a fresh process resumes.
// After the resume: the surface equals the kept state the log's best row names, byte for byte
// (files the candidate added gone, files it deleted back); the store holds no partial state; the
// finished run's log and tree agree (and, after a kill, equal an uninterrupted run's).
//
// The fixture is bundled once with esbuild (from the root devDependency tsx) so each child starts
// in ~0.1 s of CPU instead of ~1 s through tsx; children run in a pool of 3.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const repoRoot = dirname(dirname(packageDir));
const temps: string[] = [];
let bundle = '';
/**
 * Workspaces on tmpfs where there is one: the engine's fsyncs cost nothing there, rename and unlink behave as on disk.
 */
const scratch = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

interface Report {
  atResume?: { bestId: string; surface: Record<string, string> };
  error?: string;
  rows: { iteration: number; status: string; score: number | null; candidateId: string }[];
  final: Record<string, string>;
  writes: number | string[];
  snapshots?: string[];
  store?: string[];
}
interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

beforeAll(async () => {
  const out = mkdtempSync(join(tmpdir(), 'loop-fault-bundle-'));
  temps.push(out);
  // esbuild comes with the root devDependency tsx; typed here by the one call this file makes.
  const esbuild = createRequire(createRequire(join(repoRoot, 'package.json')).resolve('tsx/package.json'))(
    'esbuild',
  ) as { build: (options: Record<string, unknown>) => Promise<unknown> };
  bundle = join(out, 'fault-cycle.mjs');
  await esbuild.build({
    entryPoints: [join(packageDir, 'test/fixtures/fault-cycle.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    outfile: bundle,
    logLevel: 'error',
    banner: {
      js:
        "import { createRequire as __loopRequire } from 'node:module'; import { " +
        "fileURLToPath as __loopPath } from 'node:url'; const require = " +
        '__loopRequire(import.meta.url); const __filename = ' +
        '__loopPath(import.meta.url); const __dirname = __filename.slice(0, ' +
        "__filename.lastIndexOf('/'));",
    },
  });
}, 60_000);
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Job {
  kind: string;
  ws: string;
  mode: 'count' | 'kill' | 'enospc' | 'none';
  at?: number;
  clockStart?: number;
}
/** Runs `jobs` one after the other in one child process; returns its exit and one report per finished job. */
function child(jobs: Job[]): Promise<Exit & { reports: (Report & { ws: string; mode: string })[] }> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [bundle, JSON.stringify(jobs)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    c.on('error', reject);
    c.on('close', (code, signal) =>
      resolve({
        code,
        signal,
        stdout,
        stderr,
        reports: stdout
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l)),
      }),
    );
  });
}
const only = async (job: Job): Promise<Report> => {
  const e = await child([job]);
  if (e.code !== 0 || e.reports.length !== 1) throw new Error(`child exited ${e.code ?? e.signal}: ${e.stderr}`);
  return e.reports[0]!;
};

const SNAPSHOT_START = { 'src/a.ts': 'a0', 'src/c.ts': 'c0', 'src/d.ts': 'd0', 'src/score.ts': '5' };
const TREE_START = { 'a.txt': 'a0', 'd.txt': 'd0', 'sub/c.txt': 'c0', 'score.txt': '5' };
const without = (o: Record<string, string>, key: string) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
/**
 * The kept state of each kept iteration of the scripted cycle (1 kept: edits, adds and deletes; 2 reverted: edits,
 * adds, deletes).
 */
const EXPECTED: Record<string, Record<number, Record<string, string>>> = {
  snapshot: {
    0: SNAPSHOT_START,
    1: without({ ...SNAPSHOT_START, 'src/a.ts': 'a1', 'src/score.ts': '7' }, 'src/d.ts'),
  },
  tree: {
    0: { ...TREE_START, 'sub/': '' },
    1: without({ ...TREE_START, 'sub/': '', 'a.txt': 'a1', 'new/': '', 'new/n.txt': 'n1', 'score.txt': '7' }, 'd.txt'),
  },
};
/** JSON with sorted keys: a tree listing compared without caring for walk order. */
const canon = (o: Record<string, string> | undefined) =>
  o === undefined
    ? 'undefined'
    : JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))));
const iterationOf = (id: string) => Number(/(\d{3})/.exec(id)?.[1] ?? Number.NaN);

function workspace(kind: string): string {
  const ws = mkdtempSync(join(scratch, `loop-fault-${kind}-`));
  temps.push(ws);
  const root = kind === 'tree' ? join(ws, 'tree') : ws;
  for (const [p, c] of Object.entries(kind === 'tree' ? TREE_START : SNAPSHOT_START)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), c);
  }
  return ws;
}
const clean = (ws: string) => rmSync(ws, { recursive: true, force: true });
const outcome = (r: Report) => r.rows.map((x) => `${x.iteration}:${x.status}:${x.score}`);
const lastKept = (r: Report) => [...r.rows].reverse().find((x) => x.status === 'kept' || x.status === 'baseline');

const RESUME_CLOCK = Date.UTC(2026, 10, 30, 6);

/** What must hold after the fault of `trial` and its resume in a fresh process (`r`); returns the failures found. */
function check(t: Trial, r: Report | undefined, straight: Report): string[] {
  const where = `${t.kind} ${t.fault}@${t.k}`;
  if (r === undefined) return [`${where}: the resume did not finish`];
  const problems: string[] = [];
  if (r.error) problems.push(`${where}: the resumed run threw ${r.error}`);
  if (r.atResume) {
    const want = EXPECTED[t.kind]![iterationOf(r.atResume.bestId)];
    if (canon(r.atResume.surface) !== canon(want))
      problems.push(
        `${where}: after recover(${r.atResume.bestId}) the surface is ${canon(r.atResume.surface)}, not ${canon(want)}`,
      );
  }
  const best = lastKept(r);
  const wantFinal = best ? EXPECTED[t.kind]![best.iteration] : undefined;
  if (canon(r.final) !== canon(wantFinal))
    problems.push(
      `${where}: the finished run's tree ${canon(r.final)} is not the kept ` +
        `state of its log's best row ${best?.iteration}`,
    );
  if (t.fault === 'kill' && outcome(r).join(' ') !== outcome(straight).join(' '))
    problems.push(
      `${where}: the log ${outcome(r).join(' ')} differs from an uninterrupted run's ${outcome(straight).join(' ')}`,
    );
  const leftovers = [...(r.snapshots ?? []), ...(r.store ?? [])].filter((n) => /\.(partial|staged|tmp)(\b|$)/.test(n));
  if (leftovers.length > 0) problems.push(`${where}: partial state left in the store: ${leftovers.join(', ')}`);
  return problems;
}

interface Trial {
  kind: string;
  fault: 'kill' | 'enospc';
  k: number;
  ws: string;
}

/**
 * Runs `trials` as one chain of processes: process 0 runs the first fault; process i resumes
 * trial i-1 (a process that never saw that workspace) and then runs trial i's fault; the last
 * process only resumes. A killed process ends its own fault; an ENOSPC run finishes and exits.
 */
async function chain(trials: Trial[], straight: Report): Promise<string[]> {
  const problems: string[] = [];
  const fault = (t: Trial): Job => ({ kind: t.kind, ws: t.ws, mode: t.fault, at: t.k });
  let previous: Trial | undefined;
  for (const t of [...trials, undefined]) {
    const jobs: Job[] = [
      ...(previous ? [{ kind: previous.kind, ws: previous.ws, mode: 'none' as const, clockStart: RESUME_CLOCK }] : []),
      ...(t ? [fault(t)] : []),
    ];
    const e = await child(jobs);
    if (previous) {
      const r = e.reports.find((x) => x.ws === previous!.ws);
      problems.push(...check(previous, r, straight));
      if (r === undefined) problems.push(`  (${e.code ?? e.signal}) ${e.stderr.slice(0, 800)}`);
      clean(previous.ws);
    }
    if (t && t.fault === 'kill' && e.signal !== 'SIGKILL')
      problems.push(`${t.kind} kill@${t.k}: the child was not killed (${e.code}) ${e.stderr.slice(0, 400)}`);
    previous = t;
  }
  return problems;
}

describe('fault injection at every fs write of one checkpoint/keep/revert/resume cycle (issue 12)', () => {
  for (const kind of ['snapshot', 'tree'] as const) {
    it(
      `${kind === 'snapshot' ? 'createSnapshotRollback' : 'the tree snapshot store'}: ` +
        `a SIGKILL or an ENOSPC at any write, then a resume, leaves the kept ` +
        `state of the log's best row, a complete store, and a log that agrees`,
      async () => {
        const straightWs = workspace(kind);
        const straight = await only({ kind, ws: straightWs, mode: 'none' });
        clean(straightWs);
        expect(outcome(straight)).toEqual(['0:baseline:5', '1:kept:7', '2:reverted:6']);
        expect(canon(straight.final)).toBe(canon(EXPECTED[kind]![1]));
        const countWs = workspace(kind);
        const counted = await only({ kind, ws: countWs, mode: 'count' });
        clean(countWs);
        const writes = (counted.writes as string[]).length;
        expect(writes).toBeGreaterThan(10);
        const trials: Trial[] = [];
        for (let k = 1; k <= writes; k += 1)
          for (const fault of ['kill', 'enospc'] as const) trials.push({ kind, fault, k, ws: workspace(kind) });
        const chains = [0, 1, 2].map((c) => trials.filter((_, i) => i % 3 === c));
        const problems = (await Promise.all(chains.map((c) => chain(c, straight)))).flat();
        console.log(
          `[fault-injection] ${kind}: ${writes} writes per cycle, ${trials.length} ` +
            `fault points (${writes} SIGKILLs + ${writes} ` +
            `ENOSPCs), ${problems.length} problems`,
        );
        expect(problems).toEqual([]);
      },
      300_000,
    );
  }
});

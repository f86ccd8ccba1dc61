// loop log, loop diff and loop report (csv/json export, several runs on one plot) on real runs:
// two workspaces, each a real git repository run by `loop run` in-process.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCliCaptured } from './fixtures/run-cli.js';

let root: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

const loop = (cwd: string, ...args: string[]) => runCliCaptured(cwd, args);

/** A workspace run for 6 iterations of a seeded mutator on score = (x - 3)^2 + 1. */
async function runWorkspace(name: string, seed: number): Promise<string> {
  const ws = join(root, name);
  mkdirSync(ws);
  writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(
    join(ws, 'eval.mjs'),
    "import { readFileSync } from 'node:fs';\nconst { x } = " +
      "JSON.parse(readFileSync('config.json', 'utf8'));\nconsole.log('score: ' " +
      '+ ((x - 3) ** 2 + 1));\n',
  );
  git(ws, 'init', '-q', '-b', 'main');
  await loop(ws, 'init');
  const doc = parseDocument(readFileSync(join(ws, 'loop.config.yaml'), 'utf8'));
  doc.setIn(['proposer'], {
    type: 'mutator',
    file: 'config.json',
    seed,
    space: { x: { min: -10, max: 10, integer: true } },
  });
  doc.setIn(['metricName'], 'score');
  writeFileSync(join(ws, 'loop.config.yaml'), doc.toString());
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'init');
  const run = await loop(ws, 'run', '--max-iterations', '6');
  expect(run.code, run.err).toBe(0);
  return ws;
}

let a: string;
let b: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'loop-read-'));
  a = await runWorkspace('run-a', 1);
  b = await runWorkspace('run-b', 2);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('looking at experiments', () => {
  it('loop log prints one line per iteration, filters by status, and prints JSON', async () => {
    const all = await loop(a, 'log');
    expect(all.code).toBe(0);
    const lines = all.out.trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(/^0 {2}keep +10 +[0-9a-f]{7} +baseline/);
    const json = JSON.parse((await loop(a, 'log', '--json')).out) as Array<{ iteration: number; kind: string }>;
    expect(json.map((r) => r.iteration)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const discards = JSON.parse((await loop(root, 'log', 'run-a', '--status', 'discard', '--json')).out) as Array<{
      kind: string;
    }>;
    expect(discards.length).toBe(json.filter((r) => r.kind === 'discard').length);
    expect(discards.every((r) => r.kind === 'discard')).toBe(true);
  });

  it(
    "loop log --output <n> prints the run command's output of iteration n " +
      "from .loop/logs (each iteration's, not only the last, issue 32 item 16)",
    async () => {
      for (const n of [0, 3, 6]) {
        const out = await loop(a, 'log', '--output', String(n));
        expect(out.code, out.err).toBe(0);
        expect(out.out).toMatch(/^score: \d+$/m);
        expect(out.out).toBe(readFileSync(join(a, '.loop', 'logs', `${n}.log`), 'utf8'));
      }
      const json = JSON.parse((await loop(a, 'log', '--output', '2', '--json')).out) as {
        iteration: number;
        path: string;
        text: string;
      };
      expect(json.iteration).toBe(2);
      expect(json.path).toBe(join(a, '.loop', 'logs', '2.log'));
      const missing = await loop(a, 'log', '--output', '99');
      expect(missing.code).toBe(2);
      expect(missing.err).toBe(
        `error: no log of iteration 99 in ${join(a, '.loop', 'logs')}: it holds ` +
          `iterations 0 to 6 (the newest keepLogs logs are kept)\n`,
      );
    },
  );

  it(
    'loop diff shows what a discarded iteration tried (from ' + 'refs/loop/discarded/<n>) and what a kept one changed',
    async () => {
      const rows = JSON.parse((await loop(a, 'log', '--json')).out) as Array<{
        iteration: number;
        kind: string;
        id: string;
      }>;
      const discarded = rows.find((r) => r.kind === 'discard');
      const kept = rows.find((r) => r.kind === 'keep' && r.iteration > 0);
      expect(discarded && kept).toBeTruthy();
      const d = await loop(a, 'diff', String(discarded!.iteration));
      expect(d.code, d.err).toBe(0);
      expect(d.out).toContain(`(refs/loop/discarded/${discarded!.iteration}`);
      expect(d.out).toMatch(/^-\{"x":/m);
      expect(d.out).toContain('config.json');
      const k = JSON.parse((await loop(a, 'diff', String(kept!.iteration), '--json')).out) as {
        commit: string;
        patch: string;
        ref: string;
      };
      expect(k.commit.startsWith(kept!.id)).toBe(true);
      expect(k.patch).toContain('diff --git a/config.json b/config.json');
      // The tree is left as it was: diff only reads.
      expect(git(a, 'status', '--porcelain')).toBe('');
      const missing = await loop(a, 'diff', '99');
      expect(missing.code).toBe(2);
      expect(missing.err).toBe('error: no iteration 99 in results.tsv (it has 0 to 6)\n');
    },
  );

  it(
    'loop report --format csv|json exports the rows; several runs go on one ' +
      'plot, one colour and best line per run',
    async () => {
      const csv = await loop(a, 'report', '--format', 'csv');
      expect(csv.out.split('\n')[0]).toBe(
        'iteration,status,score,id,description,started_at,duration_s,run_s,cost_usd,tokens,params_x',
      );
      expect(csv.out.trimEnd().split('\n')).toHaveLength(8);
      const json = JSON.parse((await loop(a, 'report', '--format=json')).out) as unknown[];
      expect(json).toHaveLength(7);
      // --json is accepted like on the other read commands (the same rows as --format json)
      expect(JSON.parse((await loop(a, 'report', '--json')).out)).toEqual(json);
      const both = await loop(root, 'report', 'run-a', 'run-b/results.tsv', '--format', 'csv');
      expect(both.out.split('\n')[0]).toBe(
        'run,iteration,status,score,id,description,started_at,duration_s,run_s,cost_usd,tokens,params_x',
      );
      expect(both.out.trimEnd().split('\n')).toHaveLength(15);

      const plot = await loop(root, 'report', 'run-a', 'run-b', '--out', 'runs.svg');
      expect(plot.code, plot.err).toBe(0);
      const svg = readFileSync(join(root, 'runs.svg'), 'utf8');
      const parsed = new XMLParser({ ignoreAttributes: false }).parse(svg) as unknown;
      expect(parsed).toBeTruthy();
      expect(svg).toContain('score across 2 runs');
      expect(svg).toContain('run-a');
      expect(svg).toContain('run-b');
      expect(svg).toContain('runBestLines');
      expect((svg.match(/class="mark-symbol role-mark runDots"/g) ?? []).length).toBe(1);
    },
  );
});

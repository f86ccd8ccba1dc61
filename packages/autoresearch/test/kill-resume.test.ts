// Issue 11 faults 1 and 2: a real pass in its own process is SIGKILLed at a named point (see
// fixtures/kill-pass.ts), then a new process resumes it. Everything results.tsv and the workspace
// record must equal one uninterrupted pass (the snapshot and utc columns excepted: they carry
// each process's clock).
import { runChild, type ChildResult } from '@loop/internal-test-utils';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseResultsTsv } from '../src/results-tsv.js';
import { makeWorkspace, type Workspace } from './helpers.js';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const fixture = join(packageDir, 'test', 'fixtures', 'kill-pass.ts');

let spaces: Workspace[] = [];
afterEach(() => {
  spaces.forEach((w) => w.cleanup());
  spaces = [];
});

function workspace(): Workspace {
  const ws = makeWorkspace();
  ws.write('src/a.ts', 'export const a = 1;\n');
  spaces.push(ws);
  return ws;
}

function pass(ws: Workspace, env: Record<string, string> = {}): Promise<ChildResult> {
  return runChild(process.execPath, ['--import', 'tsx', '--conditions=source', fixture, ws.dir], {
    cwd: packageDir,
    env: { ...process.env, ...env },
  });
}

/** What must not depend on an interruption: every row but its snapshot and utc cells, the files, the best. */
function outcome(ws: Workspace) {
  const rows = parseResultsTsv(readFileSync(ws.resultsPath, 'utf8')).rows.map((r): Record<string, string> => ({
    iter: r.iter,
    status: r.status,
    ...r.columns,
  }));
  const state = JSON.parse(readFileSync(ws.statePath, 'utf8')).autoresearch.function;
  return {
    rows,
    score: ws.read('src/score.ts'),
    a: ws.read('src/a.ts'),
    best: state.best_score,
    stop: state.stop_reason,
    counts: state.counts,
  };
}

/** One uninterrupted pass in its own process, shared by the tests. */
let straight: ReturnType<typeof outcome>;
beforeAll(async () => {
  const ws = makeWorkspace();
  ws.write('src/a.ts', 'export const a = 1;\n');
  try {
    const r = await pass(ws);
    expect(r.code, r.stderr).toBe(0);
    straight = outcome(ws);
  } finally {
    ws.cleanup();
  }
}, 60_000);

async function killedThenResumed(killAt: string) {
  const ws = workspace();
  const killed = await pass(ws, { LOOP_KILL_AT: killAt });
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  const resumed = await pass(ws, { LOOP_CLOCK_START: String(Date.UTC(2026, 10, 30, 6)) });
  expect(resumed.code, resumed.stderr).toBe(0);
  return { ws, outcome: outcome(ws) };
}

describe(
  'a pass SIGKILLed at a named point and resumed equals an uninterrupted ' +
    'pass (issue 11 faults 1-2; seed 002: results.tsv is the source of truth, ' +
    'resume never re-baselines)',
  () => {
    it(
      'fault 1: a kill -9 right after a keep (files at the kept version) ' +
        'resumes with the true best, so later keep decisions match an ' +
        'uninterrupted pass',
      async () => {
        expect(straight.rows.map((r) => `${r.iter}:${r.status}:${r.composite}`)).toEqual([
          '0:baseline:5.00',
          '1:kept:7.00',
          '2:kept:9.00',
          '3:reverted:8.00',
          '4:kept:9.25',
        ]);
        const { outcome: resumed } = await killedThenResumed('after-keep:2');
        expect(resumed).toEqual(straight);
      },
    );

    it(
      'fault 1 (other side of the row): a kill -9 when the keep of iteration ' + '2 starts resumes to the same outcome',
      async () => {
        const { outcome: resumed } = await killedThenResumed('before-keep:2');
        expect(resumed).toEqual(straight);
      },
    );

    it(
      'fault 2: a kill -9 while the baseline is being copied leaves no ' +
        'baseline resume can reuse: the resumed pass snapshots every mutable file ' +
        'and equals an uninterrupted pass',
      async () => {
        const { ws, outcome: resumed } = await killedThenResumed('baseline-copy:1');
        expect(resumed).toEqual(straight);
        const baselines = readdirSync(join(ws.runDir, 'snapshots')).filter((n) => n.startsWith('000-baseline-'));
        expect(baselines).toHaveLength(1);
        const inBaseline = (rel: string) => readdirSync(join(ws.runDir, 'snapshots', baselines[0]!, rel));
        expect(inBaseline('src').sort()).toEqual(['a.ts', 'score.ts']);
      },
    );
  },
);

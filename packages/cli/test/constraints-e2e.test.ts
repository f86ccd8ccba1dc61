// Issue 28 done-when: `loop run` with a constraint on a real command (a benchmark script printing
// ops_per_s and rss_mb), real git, in-process CLI. ops_per_s is a deterministic model of the
// config (no test asserts a time); rss_mb is the script's measured resident set size.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitIn } from './fixtures/mutator-workspace.js';
import { runCliCaptured } from './fixtures/run-cli.js';

const BENCH = `import { readFileSync } from 'node:fs';
const { batch, cacheMb } = JSON.parse(readFileSync('config.json', 'utf8'));
// A cache of cacheMb MiB, every page touched: it is resident.
const cache = Buffer.alloc(cacheMb * 1024 * 1024, 1);
let sum = 0;
for (let i = 0; i < 1e5; i++) sum += i % (batch + 1);
console.log('checksum: ' + (sum + (cache.length > 0 ? cache[cache.length - 1] : 0)));
console.log('ops_per_s: ' + (1000 * batch + (cacheMb > 0 ? 5000 : 0)));
console.log('rss_mb: ' + (process.memoryUsage().rss / 2 ** 20).toFixed(1));
`;

// The "agent": its first call makes a faster but bigger edit (a 200 MiB cache), its second a faster and small one.
const PROPOSE = (calls: string) => `import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(calls)}, 'x');
const n = readFileSync(${JSON.stringify(calls)}, 'utf8').length;
const edit = n === 1 ? { batch: 2, cacheMb: 200 } : { batch: 3, cacheMb: 0 };
writeFileSync('config.json', JSON.stringify(edit));
console.log(n === 1 ? 'add a 200 MiB cache' : 'batch 3');
`;

let ws: string;
let calls: string;
const loop = (...args: string[]) => runCliCaptured(ws, args);

function workspace(config: string): void {
  writeFileSync(join(ws, 'config.json'), JSON.stringify({ batch: 1, cacheMb: 0 }));
  writeFileSync(join(ws, 'bench.mjs'), BENCH);
  writeFileSync(join(ws, '..', `${ws.split('/').at(-1)}-propose.mjs`), PROPOSE(calls));
  writeFileSync(join(ws, 'loop.config.yaml'), config);
  gitIn(ws, 'init', '-q', '-b', 'main');
  gitIn(ws, 'add', '-A');
  gitIn(ws, 'commit', '-q', '-m', 'init');
}

const configText = (extra: string) => `targetFiles: [config.json]
readOnlyFiles: [bench.mjs]
runCommand: node bench.mjs
metricName: ops_per_s
direction: higher
${extra}maxIterations: 2
timeBudgetS: 60
killTimeoutS: 120
proposer:
  type: agent
  command: node ${'PROPOSE'}
  goal: make the benchmark faster
  sandbox: none
`;

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'loop-constraints-'));
  calls = `${ws}-calls.txt`;
});
afterEach(() => {
  for (const p of [ws, calls, `${ws}-propose.mjs`]) rmSync(p, { recursive: true, force: true });
});

const withPropose = (text: string) => text.replace('node PROPOSE', `node ${ws}-propose.mjs`);

describe('constraints on a real command (issue 28, end to end)', () => {
  it(
    '--constraint rss_mb <= baseline * 1.25 blocks a faster-but-bigger edit ' +
      '(its row names the constraint and by how much) and keeps a ' +
      'faster-and-small one',
    async () => {
      workspace(withPropose(configText('metrics: [rss_mb]\n')));
      const run = await loop('run', '--constraint', 'rss_mb <= baseline * 1.25');
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(rows.map((r) => [r.score, r.status])).toEqual([
        [1000, 'baseline'],
        [7000, 'reverted'],
        [3000, 'kept'],
      ]);
      expect(rows[1]?.description).toMatch(
        new RegExp(
          String.raw`^add a 200 MiB cache \(blocked by constraint rss_mb <= baseline \* ` +
            String.raw`1\.25 broken: [\d.]+ > [\d.]+ \(by [\d.]+, [\d.]+%\)\)$`,
        ),
      );
      expect(JSON.parse(gitIn(ws, 'show', 'HEAD:config.json'))).toEqual({ batch: 3, cacheMb: 0 });
      // The sidecar carries each row's metrics, the objective's and rss_mb.
      const sidecar = readFileSync(join(ws, '.loop', 'iterations.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as {
              iteration: number;
              metrics?: Record<string, number>;
              data?: { constraints?: { violations: unknown[] } };
            },
        );
      const rss = sidecar.map((r) => r.metrics?.rss_mb ?? Number.NaN);
      expect(rss[1]).toBeGreaterThan(rss[0]! * 1.25);
      expect(sidecar[1]?.data?.constraints?.violations).toHaveLength(1);
      expect(sidecar[2]?.data?.constraints?.violations).toEqual([]);
      // loop log shows each row's metrics; loop report's CSV has a column per metric and the broken constraints.
      const log = await loop('log');
      expect(log.out.split('\n')[1]).toMatch(/^1 +discard +7000 .*blocked by constraint.*\[rss_mb=[\d.]+\]$/);
      const logJson = JSON.parse((await loop('log', '--json')).out) as {
        metrics?: Record<string, number>;
        violations?: { constraint: string; mode: string }[];
      }[];
      expect(logJson[1]?.violations).toEqual([
        expect.objectContaining({ constraint: 'rss_mb <= baseline * 1.25', mode: 'blocking' }),
      ]);
      expect(logJson[2]?.metrics?.rss_mb).toBeLessThan(logJson[1]!.metrics!.rss_mb!);
      const csv = (await loop('report', '--format', 'csv')).out.trim().split('\n');
      expect(csv[0]!.split(',').slice(-2)).toEqual(['metrics_rss_mb', 'violations']);
      expect(csv[2]).toMatch(/^1,discard,7000,.*,[\d.]+,rss_mb <= baseline \* 1\.25 by [\d.]+$/);
      expect(csv[3]).toMatch(/^2,keep,3000,.*,[\d.]+,$/);
    },
  );

  it(
    'after a resume the baseline-relative bound still holds: the resumed run ' +
      "keeps the faster-and-small edit (the baseline row's metrics survive the " +
      'restart)',
    async () => {
      workspace(withPropose(configText('metrics: [rss_mb]\nconstraints: ["rss_mb <= baseline * 1.25"]\n')));
      const first = await loop('run', '--max-iterations', '1');
      expect(first.code).toBe(0);
      const resumed = await loop('resume', '--max-iterations', '2');
      expect(resumed.err).toBe('');
      expect(resumed.code).toBe(0);
      const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(rows.map((r) => [r.score, r.status])).toEqual([
        [1000, 'baseline'],
        [7000, 'reverted'],
        [3000, 'kept'],
      ]);
    },
  );

  it('an advisory constraint keeps the faster-but-bigger edit, and its row and the stop summary warn', async () => {
    workspace(
      withPropose(
        configText('metrics: [rss_mb]\nconstraints:\n  - { rule: "rss_mb <= baseline * 1.25", mode: advisory }\n'),
      ),
    );
    const run = await loop('run');
    expect(run.code).toBe(0);
    const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
    expect(rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted']);
    expect(rows[1]?.description).toMatch(
      /^add a 200 MiB cache \(advisory constraint rss_mb <= baseline \* 1\.25 broken: /,
    );
    expect(run.out).toMatch(
      /warning: 1 kept change broke an advisory constraint:\n {2}iter 1 {2}rss_mb <= baseline \* 1\.25 \(by [\d.]+\)\n/,
    );
  });

  it(
    'a bad constraint expression and a constraint on an unknown metric are ' +
      'config errors at file:line; nothing runs',
    async () => {
      workspace(
        withPropose(configText('metrics: [rss_mb]\nconstraints:\n  - rss_mb < 100\n  - heap_mb <= baseline\n')),
      );
      const run = await loop('run');
      expect(run.code).toBe(2);
      const file = join(ws, 'loop.config.yaml');
      expect(run.err).toContain(
        `${file}:8: constraints.0: constraint "rss_mb < 100": bounds are inclusive; write <= instead of <`,
      );
      expect(run.err).toContain(
        `${file}:9: constraints.1: constraint "heap_mb <= baseline" names the ` +
          `unknown metric heap_mb (the metrics are rss_mb, ops_per_s)`,
      );
      expect(existsSync(join(ws, 'results.tsv'))).toBe(false);
      expect(existsSync(calls)).toBe(false);
    },
  );

  it(
    'a constrained metric the baseline does not print is a config error at ' +
      "the constraint's line before any candidate; the run branch is removed",
    async () => {
      workspace(
        withPropose(
          configText('metrics:\n  rss_mb: "^resident:\\\\s*(\\\\S+)"\nconstraints:\n  - rss_mb <= baseline * 1.05\n'),
        ),
      );
      const run = await loop('run');
      expect(run.code).toBe(2);
      expect(run.err).toContain(
        `${join(ws, 'loop.config.yaml')}:9: constraints.0: metric rss_mb is ` +
          `missing in the baseline run: no line of its log matches ` +
          `/^resident:\\s*(\\S+)/`,
      );
      expect(existsSync(calls)).toBe(false);
      expect(gitIn(ws, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    },
  );

  it(
    'a declared metric no constraint names is checked on the baseline too: ' + 'a config error at its entry in metrics',
    async () => {
      workspace(withPropose(configText('metrics: [rss_mb, heap_mb]\n')));
      const run = await loop('run');
      expect(run.code).toBe(2);
      expect(run.err).toContain(
        `${join(ws, 'loop.config.yaml')}:6: metrics.1: metric heap_mb is missing ` +
          `in the baseline run: no line of its log matches /^heap_mb:\\s*(\\S+)/`,
      );
      expect(existsSync(calls)).toBe(false);
    },
  );
});

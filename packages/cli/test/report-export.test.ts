// loop report --format csv|json as data (issue 32 item 15): one column per proposer parameter, the
// start time, duration and metrics of each row, from a real TPE run's files (git commits, results.tsv,
// .loop/iterations.jsonl), so a run loads into pandas like Optuna's trials_dataframe().
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCliCaptured } from './fixtures/run-cli.js';

let root: string;
let ws: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
const loop = (cwd: string, ...args: string[]) => runCliCaptured(cwd, args);

/** RFC 4180 CSV (quoted cells with commas and doubled quotes) to rows of cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((cell += '"'), i++);
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(cell), (cell = ''));
    else if (c === '\n') (row.push(cell), rows.push(row), (row = []), (cell = ''));
    else cell += c;
  }
  return rows;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'loop-export-'));
  ws = join(root, 'tune');
  mkdirSync(ws);
  writeFileSync(join(ws, 'config.json'), JSON.stringify({ lr: 0.01, layers: 2, activation: 'relu' }));
  const score = "(Math.log10(c.lr) + 2.5) ** 2 + (c.layers - 4) ** 2 / 10 + (c.activation === 'gelu' ? 0 : 0.3)";
  writeFileSync(
    join(ws, 'eval.mjs'),
    `import { readFileSync } from 'node:fs';\nconst c = ` +
      `JSON.parse(readFileSync('config.json', 'utf8'));\nconsole.log('score: ' ` +
      `+ (${score}));\n`,
  );
  git(ws, 'init', '-q', '-b', 'main');
  await loop(ws, 'init');
  const doc = parseDocument(readFileSync(join(ws, 'loop.config.yaml'), 'utf8'));
  const space = {
    lr: { min: 0.0001, max: 0.1, scale: 'log' },
    layers: { min: 1, max: 8, integer: true },
    activation: { values: ['relu', 'tanh', 'gelu'] },
  };
  doc.setIn(['proposer'], { type: 'tpe', file: 'config.json', seed: 3, space });
  doc.setIn(['metricName'], 'score');
  writeFileSync(join(ws, 'loop.config.yaml'), doc.toString());
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'init');
  const run = await loop(ws, 'run', '--max-iterations', '5');
  expect(run.code, run.err).toBe(0);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('loop report --format csv|json: results as data', () => {
  it("has one params_<name> column per proposer parameter, with the values the row's commit holds", async () => {
    const csv = await loop(ws, 'report', '--format', 'csv');
    expect(csv.code, csv.err).toBe(0);
    const [header, ...rows] = parseCsv(csv.out);
    expect(header).toEqual([
      'iteration',
      'status',
      'score',
      'id',
      'description',
      'started_at',
      'duration_s',
      'run_s',
      'cost_usd',
      'tokens',
      'params_lr',
      'params_layers',
      'params_activation',
    ]);
    expect(rows).toHaveLength(6);
    const col = (name: string) => header!.indexOf(name);
    expect(rows[0]!.slice(col('params_lr'))).toEqual(['0.01', '2', 'relu']); // the baseline's config
    for (const row of rows) {
      // Every candidate, discarded ones too, is a commit whose config.json holds exactly these values.
      const committed = JSON.parse(git(ws, 'show', `${row[col('id')]}:config.json`)) as Record<string, unknown>;
      expect(row.slice(col('params_lr'))).toEqual([
        String(committed.lr),
        String(committed.layers),
        String(committed.activation),
      ]);
    }
    expect(new Set(rows.map((r) => r[col('params_lr')])).size).toBeGreaterThan(1); // the TPE moved lr
  });

  it(
    'gives each row its start time and duration (ordered, non-negative), and ' +
      'the JSON form carries params and metrics objects',
    async () => {
      const [header, ...rows] = parseCsv((await loop(ws, 'report', '--format', 'csv')).out);
      const starts = rows.map((r) => Date.parse(r[header!.indexOf('started_at')]!));
      expect(starts.every((t) => Number.isFinite(t))).toBe(true);
      expect([...starts].sort((x, y) => x - y)).toEqual(starts);
      for (const r of rows) {
        const duration = Number(r[header!.indexOf('duration_s')]);
        const runS = Number(r[header!.indexOf('run_s')]);
        expect(duration).toBeGreaterThanOrEqual(0);
        expect(runS).toBeGreaterThanOrEqual(0);
        expect(runS).toBeLessThanOrEqual(duration + 0.001);
      }
      const json = JSON.parse((await loop(ws, 'report', '--format', 'json')).out) as Array<{
        iteration: number;
        score: number;
        startedAt: string;
        durationS: number;
        params: Record<string, unknown>;
        metrics: Record<string, number>;
      }>;
      expect(json).toHaveLength(6);
      expect(json[0]).toMatchObject({
        iteration: 0,
        score: 0.95,
        params: { lr: 0.01, layers: 2, activation: 'relu' },
        metrics: {},
      });
      expect(typeof json[3]!.params.layers).toBe('number');
      expect(json.map((r) => r.startedAt)).toEqual(starts.map((t) => new Date(t).toISOString()));
    },
  );
});

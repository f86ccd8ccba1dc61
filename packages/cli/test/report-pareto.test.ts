// loop report --pareto (issue 28): the CLI writes the front's JSON and SVG beside the progress plot;
// a bad --pareto is a usage error before anything is written.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliCaptured } from './fixtures/run-cli.js';

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'loop-pareto-cli-'));
  mkdirSync(join(ws, '.git'));
  mkdirSync(join(ws, '.loop'));
  const tsv =
    'commit\tscore\tstatus\tdescription\na1\t100\tkeep\tbaseline\nb2\t90\tkeep\tfaster\nc3\t120\tdiscard\taccurate\n';
  writeFileSync(join(ws, 'results.tsv'), tsv);
  const metrics = [
    { ops_per_s: 100, rss_mb: 50 },
    { ops_per_s: 110, rss_mb: 45 },
    { ops_per_s: 130, rss_mb: 80 },
  ];
  const lines = metrics.map((m, iteration) =>
    JSON.stringify({ iteration, startedAt: '', durationS: 1, status: '', score: null, metrics: m }),
  );
  writeFileSync(join(ws, '.loop', 'iterations.jsonl'), `${lines.join('\n')}\n`);
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('loop report --pareto', () => {
  it('writes .loop/pareto.svg and .loop/pareto.json with the front of the named metrics', async () => {
    const r = await runCliCaptured(ws, [
      'report',
      'results.tsv',
      '--pareto',
      'ops_per_s:max,rss_mb:min',
      '--direction',
      'lower',
    ]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`wrote ${join(ws, '.loop', 'pareto.svg')} (Pareto front: 2 states)`);
    const json = JSON.parse(readFileSync(join(ws, '.loop', 'pareto.json'), 'utf8'));
    expect(json.front.map((p: { iteration: number; commit: string }) => [p.iteration, p.commit])).toEqual([
      [2, 'c3'],
      [1, 'b2'],
    ]);
  });

  it('a malformed --pareto exits 2 naming the part, and writes nothing', async () => {
    const r = await runCliCaptured(ws, ['report', 'results.tsv', '--pareto', 'ops_per_s:up,rss_mb:min']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('"ops_per_s:up" is not metric:min or metric:max');
    expect(existsSync(join(ws, '.loop', 'progress.svg'))).toBe(false);
  });
});

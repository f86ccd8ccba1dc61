import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseObjectives, writeParetoReport } from './pareto.js';

// Rows: baseline, a dominating keep, a trade-off discard, a dominated discard, a crash.
const TSV =
  'commit\tscore\tstatus\tdescription\na1\t100\tkeep\tbaseline\nb2\t90\tkeep\tfaster\nc3\t120\tdiscard\tslower ' +
  'but accurate\nd4\t95\tdiscard\tdominated\ne5\t0\tcrash\toom\n';
const METRICS = [
  { latency_ms: 100, accuracy: 0.8 },
  { latency_ms: 90, accuracy: 0.82 },
  { latency_ms: 120, accuracy: 0.9 },
  { latency_ms: 95, accuracy: 0.81 },
];

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'loop-pareto-'));
  mkdirSync(join(ws, '.git'));
  mkdirSync(join(ws, '.loop'));
  writeFileSync(join(ws, 'results.tsv'), TSV);
  const lines = METRICS.map((metrics, iteration) =>
    JSON.stringify({ iteration, startedAt: '2026-12-04T00:00:00Z', durationS: 1, status: 'x', score: null, metrics }),
  );
  writeFileSync(join(ws, '.loop', 'iterations.jsonl'), `${lines.join('\n')}\n`);
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('loop report --pareto', () => {
  it(
    'writes the front (iteration, commit, status, values) to ' +
      '.loop/pareto.json: reverted trade-offs included, dominated states and ' +
      'crashes left out',
    async () => {
      const written = await writeParetoReport({
        results: join(ws, 'results.tsv'),
        objectives: parseObjectives('latency_ms:min,accuracy:max'),
      });
      expect(written.files).toEqual([join(ws, '.loop', 'pareto.svg'), join(ws, '.loop', 'pareto.json')]);
      const json = JSON.parse(readFileSync(join(ws, '.loop', 'pareto.json'), 'utf8'));
      expect(json.evaluated).toBe(4);
      expect(json.front).toEqual([
        { iteration: 1, commit: 'b2', status: 'kept', values: { latency_ms: 90, accuracy: 0.82 } },
        { iteration: 2, commit: 'c3', status: 'reverted', values: { latency_ms: 120, accuracy: 0.9 } },
      ]);
    },
  );

  it(
    'draws the front as an SVG scatter: two front dots, two dominated dots, ' +
      'the incumbent ringed, the axes named with their directions',
    async () => {
      await writeParetoReport({
        results: join(ws, 'results.tsv'),
        objectives: parseObjectives('latency_ms:min,accuracy:max'),
      });
      const svg = readFileSync(join(ws, '.loop', 'pareto.svg'), 'utf8');
      const marks = (name: string) =>
        (svg.match(new RegExp(`class="mark-symbol role-mark ${name}"[^>]*>(.*?)</g>`, 's'))?.[1]?.match(/<path/g) ?? [])
          .length;
      expect(marks('frontDots')).toBe(2);
      expect(marks('dominatedDots')).toBe(2);
      expect(marks('incumbentRing')).toBe(1);
      expect(svg).toContain('latency_ms (lower is better)');
      expect(svg).toContain('accuracy (higher is better)');
      expect(svg).toContain('Pareto front: 2 of 4 evaluated states');
    },
  );

  it('--pareto takes metric:min|max pairs, at least two; anything else is a usage error naming the part', () => {
    expect(parseObjectives('a:min, b:maximize')).toEqual([
      { metric: 'a', direction: 'minimize' },
      { metric: 'b', direction: 'maximize' },
    ]);
    expect(() => parseObjectives('a:min')).toThrow(/at least two objectives/);
    expect(() => parseObjectives('a:min,b:up')).toThrow(/"b:up" is not metric:min or metric:max/);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readResultsOf, resolveResultsSource } from './results-source.js';
import { formatLog, logEntries } from './log.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-source-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('resolveResultsSource', () => {
  it(
    'a config without a results.tsv is refused with the right article: "an ' + 'autotune config", "a collie config"',
    async () => {
      writeFileSync(join(dir, 'loop.config.yaml'), 'preset: autotune\n');
      await expect(resolveResultsSource('loop.config.yaml', dir)).rejects.toThrow(
        /loop\.config\.yaml is an autotune config: it keeps no results\.tsv \(use "loop status loop\.config\.yaml"\)/,
      );
      writeFileSync(join(dir, 'collie.config.yaml'), 'task: x\n');
      await expect(resolveResultsSource('collie.config.yaml', dir)).rejects.toThrow(
        /collie\.config\.yaml is a collie config/,
      );
    },
  );

  it(
    'autoresearch rows carry their own descriptions (from results.jsonl, the ' +
      'twin the pass writes first), not their status and snapshot; without a ' +
      'twin, status and snapshot',
    async () => {
      const results = join(dir, 'results.tsv');
      writeFileSync(
        results,
        [
          'iter\tcomposite\tdelta\tquality\tstatus\tsnapshot\tutc',
          '0\t6.00\t0.00\t6.00\tbaseline\t000-baseline-20261201T170904Z\t2026-12-01T17:09:04.224Z',
          '1\t8.00\t2.00\t8.00\tkept\t-\t2026-12-01T17:09:05.055Z',
          '2\t7.00\t-1.00\t7.00\treverted\t-\t2026-12-01T17:09:06.143Z',
          '',
        ].join('\n'),
      );
      const twin = (iteration: number, status: string, description: string) =>
        JSON.stringify({ iteration, status, class: status, score: 0, candidateId: '', description });
      writeFileSync(
        join(dir, 'results.jsonl'),
        [
          twin(0, 'baseline', 'baseline'),
          twin(1, 'kept', 'turn the first var into const'),
          twin(2, 'reverted', 'stale try'),
          twin(2, 'reverted', 'inline\tsum'),
          '',
        ].join('\n'),
      );
      const source = { results, dir };
      const described = (await readResultsOf(source)).points.map((p) => p.description);
      expect(described).toEqual(['baseline', 'turn the first var into const', 'inline sum']);
      expect(formatLog(logEntries(await readResultsOf(source), []))).toMatch(
        /^1 +kept +8 +- +turn the first var into const$/m,
      );
      rmSync(join(dir, 'results.jsonl'));
      expect((await readResultsOf(source)).points.map((p) => p.description)).toEqual([
        'baseline 000-baseline-20261201T170904Z',
        'kept',
        'reverted',
      ]);
    },
  );
});

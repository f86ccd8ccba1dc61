import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolvePassConfig, runAcceptance, type AcceptanceEvaluation } from '@loop/autoresearch';
import { formatResultsRow, resultsHeader } from '@loop/autoresearch/results-tsv';
import { XMLParser } from 'fast-xml-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderReportHtml } from './html.js';
import { renderPlotSvg } from './plot.js';
import { detectResultsForm, parseResults } from './results.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-report-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The SVG's mark groups by their Vega name (the `role-mark <name>` class), with their child paths counted. */
function markCounts(svg: string): Record<string, number> {
  const counts: Record<string, number> = {};
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const n = node as Record<string, unknown>;
      const cls = typeof n['@_class'] === 'string' ? (n['@_class'] as string) : '';
      const m = /\bmark-symbol role-mark (\w+)/.exec(cls);
      if (m) counts[m[1]!] = [n['path'] ?? []].flat().length;
      for (const v of Object.values(n)) walk(v);
    }
  };
  walk(new XMLParser({ ignoreAttributes: false }).parse(svg));
  return counts;
}

/** A real AR-3 results.tsv, written by @loop/autoresearch's acceptance loop: develop, develop, done. */
async function realAr3(): Promise<string> {
  const evals: AcceptanceEvaluation[] = [
    { passRate: 0.6, whyAlignment: 7, blockers: ['checkout returns 500'] },
    { passRate: 0.8, whyAlignment: 8, blockers: ['empty cart'] },
    { passRate: 1, whyAlignment: 9.5, blockers: [] },
  ];
  let i = 0;
  let t = Date.parse('2026-11-30T05:00:00Z');
  await runAcceptance({
    workspace: dir,
    taskId: 'T-3',
    config: resolvePassConfig('acceptance', {
      kpi_target: 9,
      ar_acceptance: { max_acceptance_rounds: 5, pass_rate_target: 0.95 },
    }),
    clock: { now: () => (t += 60_000) },
    evaluate: async () => evals[i++]!,
    develop: () => {},
    escalate: () => {},
  });
  return readFileSync(join(dir, '.aid/pipeline/autoresearch/T-3/results.tsv'), 'utf8');
}

describe('loop report reads each format with its preset’s reader', () => {
  it(
    'detects the form from the header: commit ... is auto-iterate, iter ... ' +
      'is autoresearch, anything else is RESULTS_CORRUPT',
    () => {
      expect(detectResultsForm('commit\tscore\tstatus\tdescription\n')).toBe('auto-iterate');
      expect(detectResultsForm('commit\tmetric\tstatus\tdescription\r\n')).toBe('auto-iterate');
      expect(detectResultsForm(`${resultsHeader('acceptance').join('\t')}\n`)).toBe('autoresearch');
      expect(detectResultsForm('')).toBe('auto-iterate');
      expect(() => detectResultsForm('iteration\tscore\n', 'x.tsv')).toThrow(
        expect.objectContaining({
          code: 'RESULTS_CORRUPT',
          message: expect.stringContaining('x.tsv:1: not a results.tsv of a known form'),
        }),
      );
    },
  );

  it(
    'a real AR-3 results.tsv draws develop as a non-kept round and done as ' + 'kept, on pass_rate; nothing is a crash',
    async () => {
      const text = await realAr3();
      expect(text.split('\n')[0]).toBe('iter\tpass_rate\twhy_alignment\tstatus\tsnapshot\tutc');
      const data = parseResults(text);
      expect(data).toMatchObject({ form: 'autoresearch', metric: 'pass_rate', direction: 'maximize' });
      expect(data.points.map((p) => [p.iteration, p.status, p.kind, p.score])).toEqual([
        [1, 'develop', 'discard', 0.6],
        [2, 'develop', 'discard', 0.8],
        [3, 'done', 'keep', 1],
      ]);
      const svg = await renderPlotSvg(data, { direction: 'maximize' });
      expect(svg).toContain('pass_rate progress: 3 experiments, 1 kept, 2 discarded, 0 crashed');
      expect(markCounts(svg)).toMatchObject({ discardDots: 2, keptDots: 1, crashMarks: 0, haltedMarks: 0 });
      const html = renderReportHtml(data, svg, { direction: 'maximize' });
      expect(html.match(/<tr class="discard">/g)).toHaveLength(2);
      expect(html.match(/<tr class="keep">/g)).toHaveLength(1);
      expect(html).not.toContain('<tr class="crash">');
    },
  );

  it(
    'seed 002 halting statuses (restore-failed, rubric-tampered, ' +
      'state-write-failed, escalate) are halted, not crashes; reverted-redtest ' +
      'is a revert',
    async () => {
      const header = resultsHeader('function');
      const row = (iter: string, composite: string, status: string) =>
        formatResultsRow(header, {
          iter,
          columns: { composite, delta: '0.00', quality: composite, pass_rate: '1', coverage: '90' },
          status,
          snapshot: `${iter.padStart(3, '0')}-pre-x`,
          utc: '2026-11-30T04:00:00.000Z',
        });
      const text = [
        header.join('\t'),
        row('0', '6.00', 'baseline'),
        row('1', '7.00', 'kept'),
        row('2', '5.00', 'reverted-redtest'),
        row('3', '-', 'crash'),
        row('4', '6.50', 'restore-failed'),
        '',
      ].join('\n');
      const data = parseResults(text);
      expect(data.points.map((p) => [p.status, p.kind, p.score])).toEqual([
        ['baseline', 'baseline', 6],
        ['kept', 'keep', 7],
        ['reverted-redtest', 'discard', 5],
        ['crash', 'crash', null],
        ['restore-failed', 'halted', 6.5],
      ]);
      const svg = await renderPlotSvg(data, { direction: 'maximize' });
      expect(svg).toContain('composite progress: 4 experiments, 1 kept, 1 discarded, 1 crashed, 1 halted');
      expect(markCounts(svg)).toMatchObject({ crashMarks: 1, haltedMarks: 1 });
      const ar3 = [
        resultsHeader('acceptance').join('\t'),
        'ar3-r1\t-\t-\trubric-tampered\t-\t2026-11-30T05:00:00.000Z',
        'ar3-r2\t0.80\t8.00\tescalate\t-\t2026-11-30T05:01:00.000Z',
        '',
      ].join('\n');
      expect(parseResults(ar3).points.map((p) => [p.kind, p.score])).toEqual([
        ['halted', null],
        ['halted', 0.8],
      ]);
    },
  );

  it(
    'an auto-iterate results.tsv reads as before through ' +
      '@loop/auto-iterate’s parser (keep, discard, rejected, crash)',
    () => {
      const text =
        'commit\tscore\tstatus\tdescription\na1\t10\tkeep\tbaseline\nb2\t12\tdiscard\tlr ' +
        'up\nc3\t-\tdiscard\trejected: edited ' +
        'prepare.mjs\nd4\tcrash\tcrash\toom\ne5\t8\tkeep\tlr down\n';
      const data = parseResults(text);
      expect(data).toMatchObject({ form: 'auto-iterate', metric: 'score' });
      expect(data.direction).toBeUndefined();
      expect(data.points.map((p) => [p.iteration, p.id, p.status, p.kind, p.score, p.description])).toEqual([
        [0, 'a1', 'keep', 'baseline', 10, 'baseline'],
        [1, 'b2', 'discard', 'discard', 12, 'lr up'],
        [2, 'c3', 'discard', 'discard', null, 'rejected: edited prepare.mjs'],
        [3, 'd4', 'crash', 'crash', null, 'oom'],
        [4, 'e5', 'keep', 'keep', 8, 'lr down'],
      ]);
    },
  );
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideAcceptance, runAcceptanceRound } from './acceptance.js';
import { resolvePassConfig } from './config.js';
import { parseResultsTsv } from './results-tsv.js';

const config = resolvePassConfig('acceptance', {
  kpi_target: 9,
  ar_acceptance: { max_acceptance_rounds: 2, pass_rate_target: 0.95 },
});

describe('acceptance mode AR-3 (seed 002)', () => {
  it('DONE when pass_rate ≥ pass_rate_target, no blockers and why_alignment ≥ target', () => {
    expect(decideAcceptance(1, { passRate: 0.96, whyAlignment: 9, blockers: [] }, config)).toBe('done');
    expect(decideAcceptance(1, { passRate: 0.96, whyAlignment: 9, blockers: ['login fails'] }, config)).toBe('develop');
    expect(decideAcceptance(1, { passRate: 0.9, whyAlignment: 9.5, blockers: [] }, config)).toBe('develop');
  });

  it(
    'on the max_acceptance_rounds cap with open blockers it escalates to the ' +
      'user rather than looping the pipeline',
    () => {
      expect(decideAcceptance(2, { passRate: 0.5, whyAlignment: 9, blockers: ['b'] }, config)).toBe('escalate');
    },
  );

  it(
    'a round appends one row iter ar3-r<R>, pass_rate, why_alignment, ' +
      'status, snapshot -, utc, and the gap summary goes to chat only',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'loop-ar3-'));
      try {
        const lines: string[] = [];
        const r = await runAcceptanceRound({
          workspace: dir,
          taskId: 'T-1',
          config,
          round: 2,
          evaluate: async () => ({ passRate: 0.5, whyAlignment: 7, blockers: ['checkout 500s'] }),
          clock: { now: () => 0 },
          output: (l) => lines.push(l),
        });
        expect(r.decision).toBe('escalate');
        const text = readFileSync(join(dir, '.aid/pipeline/autoresearch/T-1/results.tsv'), 'utf8');
        expect(text.split('\n')[1]).toBe('ar3-r2\t0.50\t7.00\tescalate\t-\t1970-01-01T00:00:00.000Z');
        expect(parseResultsTsv(text).rows[0]!.snapshot).toBe('-');
        expect(lines).toEqual([
          'iter ar3-r2 | escalate | pass_rate 0.50 why_alignment 7.00 | open ' +
            'blockers: checkout 500s — escalating to the user (max_acceptance_rounds ' +
            'reached)',
        ]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

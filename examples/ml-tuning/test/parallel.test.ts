import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../src/demo.js';
import { expectRunAgreement } from './agreement.js';

const parent = mkdtempSync(join(tmpdir(), 'loop-demo-par-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('ml-tuning demo with parallel candidates (real training, real git)', () => {
  it(
    '--parallel 2: two candidates per batch trained in their own copies; one ' +
      'row each; the winner is on the run branch, the other under ' +
      'refs/loop/discarded/<n>; HEAD holds the kept config',
    async () => {
      const out = join(parent, 'local');
      const lines: string[] = [];
      const { summary, branch } = await runDemo({
        iterations: 4,
        steps: 100,
        budgetS: 2,
        seed: 5,
        parallel: 2,
        out,
        resume: false,
        print: (l) => lines.push(l),
      });
      expect(summary.iterations).toBe(4);
      expectRunAgreement(out, branch, { iterations: 4, candidates: 2 });
      expect(lines.join('\n')).toContain('parallel  2 candidates at once');
      // Each candidate's training log outlives its working copy (issue 32 item 16): .loop/logs/<n>.log, each ending in
      // its val_bpc.
      expect(readdirSync(join(out, '.loop', 'logs')).sort()).toEqual(['0.log', '1.log', '2.log', '3.log', '4.log']);
      for (const n of [1, 2, 3, 4])
        expect(readFileSync(join(out, '.loop', 'logs', `${n}.log`), 'utf8')).toMatch(/^val_bpc: \d/m);
    },
  );
});

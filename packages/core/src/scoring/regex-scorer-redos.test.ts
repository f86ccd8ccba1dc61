import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createCommandHarness,
  createFunctionProposer,
  createLoop,
  createMemoryArtifact,
  createMemoryResultsLog,
  createMemoryRollback,
  createRegexScorer,
  maxIterations,
} from '../index.js';

// Issue 12 fault 3 through the engine: the catastrophic case costs one crash row, not the night.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-redos-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a backtracking metric pattern in a real loop', () => {
  it(
    '^(a+)+$ is refused when the loop is built; an exponential pattern the ' +
      'check cannot see makes a timeout crash row and the loop goes on (the ' +
      'limit counts matching only: a loaded machine does not turn a benign row ' +
      'into a crash, issue 32)',
    async () => {
      expect(() => createRegexScorer({ pattern: '^(a+)+$', direction: 'minimize' })).toThrow(
        expect.objectContaining({ code: 'CONFIG_INVALID' }),
      );

      // x = 0 prints the metric; x = 1 prints 40 a's and a b (2^40 paths for (a|a)+$), then the metric.
      writeFileSync(
        join(dir, 'run.mjs'),
        'const x = Number(process.env.X ?? 0); if (x === 1) ' +
          "console.log('a'.repeat(40) + 'b'); console.log('score: ' + (10 - x));\n",
      );
      const artifact = createMemoryArtifact({ x: 0 });
      const results = createMemoryResultsLog();
      const harness = createCommandHarness({
        command: 'X=$(cat x.txt 2>/dev/null || echo 0) node run.mjs',
        cwd: dir,
        timeBudgetMs: 5000,
      });
      const proposer = createFunctionProposer('step', ({ iteration }) => {
        const x = iteration === 1 ? 1 : 2;
        artifact.set({ x });
        writeFileSync(join(dir, 'x.txt'), String(x));
        return { description: `x=${x}` };
      });
      const loop = createLoop({
        artifact,
        rollback: createMemoryRollback(artifact),
        results,
        harness,
        proposer,
        stop: maxIterations(2),
        recovery: { maxRepairAttempts: 0 },
        scorer: createRegexScorer({ pattern: '^(?:score:|(?:a|a)+$)', direction: 'minimize', extractTimeoutMs: 2000 }),
      });
      await loop.run();
      expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'crash', 'kept']);
      expect(results.rows[1]!.description).toContain('took over 2000 ms and was stopped');
      expect(results.rows[2]!.score).toBe(8);
    },
  );
});

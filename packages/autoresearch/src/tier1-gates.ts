import { readFile } from 'node:fs/promises';
import { runCaptured } from './run-captured.js';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { parseOptions } from '@loop/core';
import type { GateRunner } from './pass-harness.js';

/** Options of {@link createTestGate}. */
export interface TestGateOptions {
  /** Absolute workspace; the command runs there. */
  workspace: string;
  /**
   * {{TEST_COMMAND}} as argv (`config.test_commands.unit` plus coverage), e.g. `['npx', 'vitest', 'run',
   * '--coverage']`.
   */
  command: string[];
  /**
   * {{MIN_COVERAGE}}: minimum line coverage in percent (`config.thresholds.min_coverage_percent`). @default 0 (no
   * minimum)
   */
  minCoveragePct?: number;
  /**
   * istanbul `json-summary` file, relative to workspace; coverage is `total.lines.pct`. @default
   * 'coverage/coverage-summary.json'
   */
  coverageSummary?: string;
  /** Hard timeout in ms. @default 600000 */
  timeoutMs?: number;
}

/** zod schema of {@link TestGateOptions}. */
export const testGateOptionsSchema = z.object({
  workspace: z.string().refine(isAbsolute, 'workspace must be absolute'),
  command: z
    .array(z.string())
    .min(1)
    .refine((a) => (a[0] ?? '').length > 0, 'command[0] must be the program to run'),
  minCoveragePct: z.number().min(0).max(100).default(0),
  coverageSummary: z.string().default('coverage/coverage-summary.json'),
  timeoutMs: z.number().int().positive().default(600_000),
});

/**
 * Reads a pass rate (fraction 0-1) from a test runner's output: vitest's `Tests  3 failed | 9 passed
 * (12)` or jest's `Tests: 1 failed, 9 passed, 10 total`; `undefined` when there is none.
 */
export function parsePassRate(output: string): number | undefined {
  // eslint-disable-next-line no-control-regex
  const text = output.replace(/\x1b\[[0-9;]*m/g, '');
  const vitest = /Tests\s+(?:(\d+) failed \| )?(?:(\d+) passed)?[^(\n]*\((\d+)\)/.exec(text);
  if (vitest && vitest[3]) return Number(vitest[2] ?? 0) / Number(vitest[3]);
  const jest = /Tests:\s+(?:(\d+) failed, )?(?:(\d+) passed, )?(\d+) total/.exec(text);
  if (jest && jest[3]) return Number(jest[2] ?? 0) / Number(jest[3]);
  return undefined;
}

/**
 * Function mode's Tier-1 gates (seed 002): the test command must exit 0 (green) and line coverage
 * from the istanbul summary must be at least the minimum. Never throws for red tests (that is data);
 * a command that cannot start rejects (a `crash`). Pass rate comes from the output, else 1 when
 * green and 0 when red.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options.
 */
export function createTestGate(options: TestGateOptions): GateRunner {
  const o = parseOptions(testGateOptionsSchema, options, 'test-gate');
  return {
    name: `tests(${o.command.join(' ')})`,
    run: async ({ signal }) => {
      const { code, output } = await runCaptured({
        command: o.command,
        cwd: o.workspace,
        timeoutMs: o.timeoutMs,
        signal,
      });
      const testsGreen = code === 0;
      let coveragePct: number | undefined;
      try {
        const summary = JSON.parse(await readFile(join(o.workspace, o.coverageSummary), 'utf8')) as {
          total?: { lines?: { pct?: unknown } };
        };
        const pct = summary.total?.lines?.pct;
        if (typeof pct === 'number') coveragePct = pct;
      } catch {
        coveragePct = undefined;
      }
      const coverageOk = o.minCoveragePct === 0 || (coveragePct !== undefined && coveragePct >= o.minCoveragePct);
      const passRate = parsePassRate(output) ?? (testsGreen ? 1 : 0);
      return { gates: { testsGreen, coverageOk, ...(coveragePct !== undefined ? { coveragePct } : {}) }, passRate };
    },
  };
}

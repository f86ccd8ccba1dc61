import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadPipelineContext } from './pipeline-context.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const write = (p: string, v: unknown) => {
  mkdirSync(join(dir, p, '..'), { recursive: true });
  writeFileSync(join(dir, p), JSON.stringify(v));
};

describe('placeholders from .aid/context.json and .aid/pipeline/config.json (seed 002)', () => {
  it('pipeline use fills every placeholder from the two files', async () => {
    dir = mkdtempSync(join(tmpdir(), 'loop-ctx-'));
    write('.aid/context.json', { task_id: 'T-9', criticality_profile: 'high', safety_critical_flows: ['payments'] });
    write('.aid/pipeline/config.json', {
      test_commands: { unit: 'npm test' },
      thresholds: { min_coverage_percent: 80 },
      cost_limits: { max_per_run_usd: 5 },
      autoresearch: {
        kpi_target: 9,
        ar_function: { max_iterations: 4, max_consecutive_reverts: 2, internal_rounds: 3 },
      },
    });
    const c = await loadPipelineContext(dir, 'function');
    expect(c).toMatchObject({
      taskId: 'T-9',
      criticalityProfile: 'high',
      safetyCriticalFlows: ['payments'],
      testCommand: 'npm test',
      minCoveragePct: 80,
      maxPerRunUsd: 5,
      recordFile: join(dir, '.aid/pipeline/autoresearch/T-9/results.tsv'),
      pass: { kpiTarget: 9, maxIterations: 4, internalRounds: 3 },
      assumptions: [],
    });
  });

  it('standalone use: an absent value takes the documented default and says so', async () => {
    dir = mkdtempSync(join(tmpdir(), 'loop-ctx-'));
    const c = await loadPipelineContext(dir, 'design', { taskId: 'T-1' });
    expect(c.pass.kpiTarget).toBe(9.5);
    expect(c.assumptions).toEqual(
      expect.arrayContaining([
        'config.autoresearch.kpi_target is absent: using the default 9.5',
        'config.cost_limits.max_per_run_usd is absent: no cost brake',
      ]),
    );
  });

  it(
    'seed 002 ASK-before-edit placeholders: {{SAFETY_CRITICAL_FLOWS}} ' +
      'entries may be names or { name, files } globs, {{CRITICALITY_PROFILE}} ' +
      'comes from context.json; an absent flow list is stated as an assumption',
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'loop-ctx-'));
      write('.aid/context.json', {
        task_id: 'T-9',
        criticality_profile: 'safety-critical',
        safety_critical_flows: ['payments', { name: 'auth', files: ['src/login/**'] }, 42],
      });
      const c = await loadPipelineContext(dir, 'design');
      expect(c.criticalityProfile).toBe('safety-critical');
      expect(c.safetyCriticalFlows).toEqual(['payments', { name: 'auth', files: ['src/login/**'] }]);
      write('.aid/context.json', { task_id: 'T-9' });
      const none = await loadPipelineContext(dir, 'design');
      expect(none.safetyCriticalFlows).toEqual([]);
      expect(none.assumptions).toContain(
        'context.json safety_critical_flows is absent: no edit is asked before it is applied',
      );
    },
  );

  it('no task id anywhere is CONFIG_INVALID naming context.json', async () => {
    dir = mkdtempSync(join(tmpdir(), 'loop-ctx-'));
    await expect(loadPipelineContext(dir, 'design')).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/context\.json/),
    });
  });
});

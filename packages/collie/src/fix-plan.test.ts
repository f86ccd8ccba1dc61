import { isLoopError } from '@loop/core';
import { describe, expect, it } from 'vitest';
import { type FixRecord } from './index.js';
import { fixBatches, renderFixPlan } from './fix-plan.js';

const fix = (id: string, dependencies: string[] = [], key_files: string[] = []): FixRecord => ({
  id,
  kind: 'correctness',
  severity: 3,
  fix_confidence: 4,
  root_cause: `cause ${id}`,
  reproduction_test: `test ${id}\n`,
  fix_outline: `outline ${id}`,
  why_root_cause: '',
  dependencies,
  uncertainty_tag: 'none',
  key_files,
});

describe('seed 000 Stage 5.0 fix plan', () => {
  it('Stage 5.0: the task DAG puts independent FIXes in the same batch and dependents after their dependencies', () => {
    expect(
      fixBatches([fix('FIX-003', ['FIX-001']), fix('FIX-001'), fix('FIX-002'), fix('FIX-004', ['FIX-003', 'FIX-009'])]),
    ).toEqual([['FIX-001', 'FIX-002'], ['FIX-003'], ['FIX-004']]);
  });

  it('Stage 5.0: a dependency cycle is CONFIG_INVALID naming the FIXes', () => {
    expect(() => fixBatches([fix('FIX-001', ['FIX-002']), fix('FIX-002', ['FIX-001'])])).toThrow(/FIX-001, FIX-002/);
    try {
      fixBatches([fix('FIX-001', ['FIX-001', 'FIX-002']), fix('FIX-002', ['FIX-001'])]);
    } catch (e) {
      expect(isLoopError(e, 'CONFIG_INVALID')).toBe(true);
    }
  });

  it(
    'Stage 5.0: fix-plan.md has the 3 metadata lines, DAG, details ' +
      '(Why/How/Verify), impact with reverse impact, and E2E inherited ' +
      'verbatim',
    () => {
      const text = renderFixPlan([fix('FIX-002', ['FIX-001'], ['src/b.js']), fix('FIX-001', [], ['src/a.js'])], {
        planPath: '/r/iter-2/fix-plan.md',
        iter: 2,
        e2e: 'run npm test in CI',
      });
      const lines = text.split('\n');
      expect(lines.slice(0, 3)).toEqual([
        '<!-- plan-source: /r/iter-2/fix-plan.md -->',
        '<!-- plan-topic: autoiter-iter-2-fixes -->',
        '<!-- plan-executor: collie:flow -->',
      ]);
      expect(text).toContain('- batch 1: FIX-001\n- batch 2: FIX-002');
      expect(text).toContain('- Why: cause FIX-001\n- How: outline FIX-001\n- Key files: src/a.js');
      expect(text).toContain('- Verify:\n```\ntest FIX-001\n```');
      expect(text).toContain('- Affected files: src/a.js, src/b.js\n- Reverse impact: None — iter-local change');
      expect(text.trimEnd().endsWith('## E2E Assessment\nrun npm test in CI')).toBe(true);
    },
  );
});

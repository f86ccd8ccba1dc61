import { isLoopError } from '@loop/core';
import { describe, expect, it } from 'vitest';
import { fixRecordSchema, parseFixRecord, parseTriage, triageRecordSchema } from './records.js';

describe('seed 000 Stage 4a/4b records', () => {
  it(
    'Stage 4a: triage.md parses into one validated record per ## ISSUE-nnn ' +
      '(verdict Real|Discarded|Unclear, confidence 1-5)',
    () => {
      const text =
        '## ISSUE-001\nverdict: Real\nconfidence: 4\nrationale: reproduced ' +
        'twice\n\n## ISSUE-002\nverdict: Discarded\nconfidence: 5\nrationale: log ' +
        'noise\n';
      expect(parseTriage(text)).toEqual([
        { issue: 'ISSUE-001', verdict: 'Real', confidence: 4, rationale: 'reproduced twice' },
        { issue: 'ISSUE-002', verdict: 'Discarded', confidence: 5, rationale: 'log noise' },
      ]);
    },
  );

  it(
    'Stage 4a: a verdict outside Real|Discarded|Unclear or a confidence ' +
      'outside 1-5 is rejected with PROPOSER_FAILED naming the field',
    () => {
      expect(() => parseTriage('## ISSUE-001\nverdict: Maybe\nconfidence: 3\n')).toThrow(/verdict/);
      try {
        parseTriage('## ISSUE-001\nverdict: Real\nconfidence: 6\n');
        expect.unreachable();
      } catch (error) {
        expect(isLoopError(error, 'PROPOSER_FAILED')).toBe(true);
        expect((error as Error).message).toContain('confidence');
      }
      expect(() => parseTriage('no sections here')).toThrow(/ISSUE-nnn/);
      expect(triageRecordSchema.safeParse({ issue: 'BUG-1', verdict: 'Real', confidence: 3 }).success).toBe(false);
    },
  );

  it(
    'Stage 4b: FIX-nnn.md parses id, kind, severity, fix_confidence, ' +
      'root_cause, reproduction_test, fix_outline, dependencies, ' +
      'uncertainty_tag',
    () => {
      const fix = parseFixRecord(
        [
          'id: FIX-003',
          'kind: correctness',
          'severity: 4',
          'fix_confidence: 3',
          'root_cause: "off-by-one in slice"',
          'reproduction_test: |',
          '  expect(range(3)).toEqual([0,1,2])',
          'fix_outline: "src/range.js: use < not <="',
          'why_root_cause: "falsification failed"',
          'dependencies: [FIX-001]',
          'uncertainty_tag: triage_unclear',
        ].join('\n'),
      );
      expect(fix).toEqual({
        id: 'FIX-003',
        kind: 'correctness',
        severity: 4,
        fix_confidence: 3,
        root_cause: 'off-by-one in slice',
        reproduction_test: 'expect(range(3)).toEqual([0,1,2])\n',
        fix_outline: 'src/range.js: use < not <=',
        why_root_cause: 'falsification failed',
        dependencies: ['FIX-001'],
        uncertainty_tag: 'triage_unclear',
        key_files: [],
      });
    },
  );

  it(
    'Stage 4b: a kind outside correctness|optimization|mixed, a bad ' +
      'dependency id or an uncertainty_tag outside triage_unclear|none is ' +
      'rejected',
    () => {
      const base = { id: 'FIX-001', kind: 'correctness', severity: 3, fix_confidence: 3 };
      expect(fixRecordSchema.safeParse(base).success).toBe(true);
      expect(fixRecordSchema.safeParse({ ...base, kind: 'style' }).success).toBe(false);
      expect(fixRecordSchema.safeParse({ ...base, dependencies: ['ISSUE-1'] }).success).toBe(false);
      expect(fixRecordSchema.safeParse({ ...base, uncertainty_tag: 'maybe' }).success).toBe(false);
      expect(() => parseFixRecord('id: FIX-1\nkind: correctness')).toThrow(/PROPOSER|not valid/);
    },
  );
});

import { describe, expect, it } from 'vitest';
import { forbiddenTestFileChanges, untraceableFiles } from './diff-audit.js';

describe('seed 000 G1 and G6', () => {
  it('G1: modifying or deleting a test file is a violation', () => {
    const fixes = [{ kind: 'correctness' as const, key_files: ['test/date.test.js'] }];
    expect(forbiddenTestFileChanges([{ path: 'test/date.test.js', status: 'modified' }], fixes)).toHaveLength(1);
    expect(forbiddenTestFileChanges([{ path: 'src/date.spec.ts', status: 'deleted' }], fixes)).toHaveLength(1);
    expect(forbiddenTestFileChanges([{ path: 'src/date.js', status: 'modified' }], fixes)).toEqual([]);
  });

  it('G1: a correctness FIX may add its reproduction test as a NEW file it lists; an optimization FIX may not', () => {
    expect(
      forbiddenTestFileChanges(
        [{ path: 'test/repro_001.test.js', status: 'added' }],
        [{ kind: 'correctness', key_files: ['test/repro_001.test.js'] }],
      ),
    ).toEqual([]);
    expect(
      forbiddenTestFileChanges(
        [{ path: 'test/repro_001.test.js', status: 'added' }],
        [{ kind: 'optimization', key_files: ['test/repro_001.test.js'] }],
      ),
    ).toHaveLength(1);
    expect(
      forbiddenTestFileChanges(
        [{ path: 'tests/test_other.py', status: 'added' }],
        [{ kind: 'correctness', key_files: [] }],
      ),
    ).toHaveLength(1);
  });

  it(
    'G6: every changed file must be a plan Key file or a mechanical ' +
      'consequence; anything else is untraceable (escalate)',
    () => {
      const fixes = [{ key_files: ['src/a.js'] }, { key_files: ['src/b.js'] }];
      expect(untraceableFiles(['src/a.js', 'dist/a.js', 'pnpm-lock.yaml'], fixes)).toEqual([]);
      expect(untraceableFiles(['src/a.js', 'src/c.js'], fixes)).toEqual(['src/c.js']);
    },
  );
});

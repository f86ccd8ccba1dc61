import { describe, expect, it } from 'vitest';
import { compareSnapshots, DELETED } from './artifact.js';

describe('compareSnapshots', () => {
  const artifact = { mutable: ['src'] };
  it('a path absent before is labelled a new file, a deleted one deleted, an edit by its path alone', () => {
    const before = { 'src/a.ts': 'h1', 'notes.md': 'h2', 'old.md': 'h3' };
    const after = { 'src/a.ts': 'h9', 'notes.md': 'h4', 'old.md': DELETED, 'scratch.txt': 'h5' };
    expect(compareSnapshots(artifact, before, after)).toEqual({
      changed: ['notes.md', 'old.md', 'scratch.txt', 'src/a.ts'],
      violations: ['notes.md', 'old.md (deleted)', 'scratch.txt (new file)'],
    });
  });
  it(
    "the artifact's describeChange overrides the label (a tracked file a " +
      'snapshot lists only once changed is an edit)',
    () => {
      const describeChange = (path: string, before: string | null) =>
        path === 'README.md' && before === null ? '' : undefined;
      const { violations } = compareSnapshots(
        { ...artifact, describeChange },
        {},
        { 'README.md': 'h1', 'scratch.txt': 'h2' },
      );
      expect(violations).toEqual(['README.md', 'scratch.txt (new file)']);
    },
  );
});

// The public names of @loop/rollback-git: adding or removing one is a deliberate change (issue 30).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { undocumentedExports } from '@loop/internal-test-utils';

describe('@loop/rollback-git public entries', () => {
  it('@loop/rollback-git: the entry exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(fileURLToPath(new URL('./index.ts', import.meta.url)));
    expect([...exports].sort()).toEqual([
      'ChangedEntry',
      'DiscardedDiffText',
      'DiscardedRef',
      'GitAuthor',
      'GitFs',
      'GitFsPromises',
      'GitFsStats',
      'GitResetRollback',
      'GitResetRollbackOptions',
      'GitRestoreReport',
      'GitStartReport',
      'GitWatchReport',
      'createGitResetRollback',
      'describeRepairs',
      'gitResetRollbackOptionsSchema',
      'readDiscardedDiffs',
      'readDiscardedRefs',
      'shortId',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
  it(
    '@loop/rollback-git/git: the entry exports exactly these names, each ' + 'with TSDoc (a change here is deliberate)',
    () => {
      const { exports, undocumented } = undocumentedExports(fileURLToPath(new URL('./git.ts', import.meta.url)));
      expect([...exports].sort()).toEqual([
        'AddWorktreeReport',
        'CommitPathsReport',
        'GitChangedFile',
        'GitCliContext',
        'RunGitOptions',
        'addDetachedWorktree',
        'addLocalExclude',
        'addWorktree',
        'changedFilesBetween',
        'changedFilesSince',
        'commitAll',
        'commitFiles',
        'commitPaths',
        'commitsBetween',
        'discardChanges',
        'fetchCommit',
        'findBlobs',
        'findCommitByTrailer',
        'gitBlobId',
        'gitDirOf',
        'gitLines',
        'hasCommit',
        'headSha',
        'initBareRepository',
        'isAncestor',
        'isDirty',
        'readFileAtRevs',
        'removeDetachedWorktree',
        'removeWorktree',
        'resetHard',
        'revertCommits',
        'runGit',
        'runGitBuffer',
        'squashSince',
        'trailerValue',
      ]);
      expect(undocumented).toEqual([]);
    },
    120_000,
  );
});

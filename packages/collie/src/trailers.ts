import type { GitCliContext } from '@loop/rollback-git/git';

/** The commit trailer that names the FIX a Stage 5.1 commit applies (restart-safe lookup). */
export const FIX_TRAILER = 'Collie-Fix';
/** The commit trailer of a Stage 6 revert commit. */
export const REVERT_TRAILER = 'Collie-Revert';
/**
 * The trailer carrying the flow executor's one-line note of a FIX commit (read back when a restarted step finds the
 * commit).
 */
export const NOTE_TRAILER = 'Collie-Note';

/** The author and committer of collie's commits when the environment names none (`GIT_AUTHOR_NAME` etc. win). */
export const COLLIE_AUTHOR: NonNullable<GitCliContext['author']> = Object.freeze({
  name: 'collie',
  email: 'collie@localhost',
});

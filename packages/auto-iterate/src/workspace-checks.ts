import { stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { LoopError } from '@loop/core';

/** The nearest folder above `dir` holding a `.git` (file or directory), or `undefined`. */
async function enclosingRepository(dir: string): Promise<string | undefined> {
  for (let d = dirname(dir); ; d = dirname(d)) {
    if (
      await stat(join(d, '.git')).then(
        () => true,
        () => false,
      )
    )
      return d;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * Checks that `dir` is a git working-tree root. A folder inside a repository gets a message
 * naming that repository (running `git init` there would make a nested repository); a folder in
 * none is told to run `git init`.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` with `details.dir` (and `details.repository` when `dir`
 *   is inside one).
 */
export async function assertRepositoryRoot(dir: string): Promise<void> {
  if (
    await stat(join(dir, '.git')).then(
      () => true,
      () => false,
    )
  )
    return;
  const repository = await enclosingRepository(dir);
  if (repository !== undefined) {
    throw new LoopError(
      'NOT_A_REPOSITORY',
      `[loop] [auto-iterate] ${dir} is inside the git ` +
        `repository ${repository}, not its root; the loop commits to a branch of ` +
        `the whole repository, so set dir to ${repository} and name the files ` +
        `relative to it (e.g. ${relative(repository, join(dir, 'file'))}). Do not ` +
        `run git init here: that would make a nested repository`,
      { details: { dir, repository } },
    );
  }
  throw new LoopError(
    'NOT_A_REPOSITORY',
    `[loop] [auto-iterate] ${dir} is not in a git repository; run "git init" there and commit the files first`,
    { details: { dir } },
  );
}

/**
 * Refuses to start a new run in a workspace that holds an earlier run's results.tsv rows or its
 * state file, before anything is changed (no branch is created or checked out).
 *
 * @throws {LoopError} `RESUME_MISMATCH` saying to run `loop resume` to continue it, or `loop run
 *   --new` to archive it and start a new run (API: the `archive` option).
 */
export async function assertNoEarlierRun(resultsPath: string, rows: number, statePath: string): Promise<void> {
  if (rows > 0) {
    throw new LoopError(
      'RESUME_MISMATCH',
      `[loop] [auto-iterate] ${resultsPath} already ` +
        `holds ${rows} ${rows === 1 ? 'row' : 'rows'} of an earlier run here; ` +
        `continue it with "loop resume", or start a new run with "loop run --new" ` +
        `(it moves the earlier run's results.tsv and .loop/ files to ` +
        `.loop/runs/<its tag>/ first)`,
      { details: { path: resultsPath, statePath } },
    );
  }
  if (
    await stat(statePath).then(
      () => true,
      () => false,
    )
  ) {
    throw new LoopError(
      'RESUME_MISMATCH',
      `[loop] [auto-iterate] ${statePath} records an earlier run here ` +
        `but ${resultsPath} is missing or empty; restore results.tsv and run ` +
        `"loop resume", or start a new run with "loop run --new" (it moves the ` +
        `earlier run's .loop/ files to .loop/runs/<its tag>/ first)`,
      { details: { path: resultsPath, statePath } },
    );
  }
}

// Shared set-up of the createGitResetRollback tests (git-reset-rollback*.test.ts).
import { isLoopError, type LoopError } from '@loop/core';
import { createGitResetRollback, type GitResetRollbackOptions } from '../src/index.js';
import { makeRepo, testOptions, steppingClock, type FileSpec, type TempRepo } from './helpers.js';

export const BRANCH = 'auto-iterate/nov30';
export const repos: TempRepo[] = [];

/** Removes the temporary repositories the tests made (`afterEach(cleanUpRepos)`). */
export function cleanUpRepos(): void {
  for (const repo of repos.splice(0)) repo.cleanup();
}

export const FILES: Record<string, FileSpec> = {
  'train.py': 'lr = 0.1\n',
  'prepare.py': 'data = 1\n',
  'src/model.py': 'layers = 2\n',
  'src/deep/util.py': 'def f(): pass\n',
  'run.sh': { content: '#!/bin/sh\necho run\n', executable: true },
  '.gitignore': '__pycache__/\n',
};

export function setup(options: Partial<GitResetRollbackOptions> = {}, files: Record<string, FileSpec> = FILES) {
  const repo = makeRepo(files);
  repos.push(repo);
  const rollback = createGitResetRollback({
    ...testOptions(),
    dir: repo.dir,
    branch: BRANCH,
    clock: steppingClock(),
    ...options,
  });
  return { repo, rollback };
}

export async function rejection(promise: Promise<unknown>): Promise<LoopError> {
  try {
    await promise;
  } catch (error) {
    if (isLoopError(error)) return error;
    throw error;
  }
  throw new Error('expected a LoopError, got success');
}

export const info = (iteration: number, description = `edit ${iteration}`, attempt = 0) => ({
  iteration,
  attempt,
  description,
});

import { isLoopError, ConfigError } from '@loop/core';
import { memfs } from 'memfs';
import { describe, expect, it } from 'vitest';
import { createGitResetRollback, gitResetRollbackOptionsSchema } from './index.js';
import { branchNameProblem } from './git-reset-rollback-options.js';

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('gitResetRollbackOptionsSchema', () => {
  it('applies the documented defaults', () => {
    const parsed = gitResetRollbackOptionsSchema.parse({ dir: '/repo', branch: 'auto-iterate/nov30' });
    expect(parsed).toMatchObject({
      resume: false,
      allowDirty: false,
      author: { name: 'loop', email: 'loop@localhost' },
      excludes: ['results.tsv', 'run.log', '.loop/'],
      messagePrefix: 'auto-iterate: ',
    });
    expect(parsed.paths).toBeUndefined();
    expect(typeof parsed.fs.promises.readFile).toBe('function');
    expect(typeof parsed.clock.now()).toBe('number');
  });

  it('normalises paths', () => {
    const parsed = gitResetRollbackOptionsSchema.parse({
      dir: '/repo',
      branch: 'b',
      paths: ['./src/', 'train.py', 'a//b'],
    });
    expect(parsed.paths).toEqual(['src', 'train.py', 'a/b']);
  });

  it('invalid options fail with CONFIG_INVALID naming the field', () => {
    const relative = configError(() => createGitResetRollback({ dir: 'repo', branch: 'b' }));
    expect(relative.code).toBe('CONFIG_INVALID');
    expect(isLoopError(relative, 'CONFIG_INVALID')).toBe(true);
    expect(relative.message).toBe('[loop] [rollback-git] invalid options: dir: must be an absolute path');

    const branch = configError(() => createGitResetRollback({ dir: '/repo', branch: 'has space' }));
    expect(branch.issues.map((i) => i.path)).toEqual(['branch']);

    const paths = configError(() =>
      createGitResetRollback({ dir: '/repo', branch: 'b', paths: ['../outside', '/abs', '.git/config'] }),
    );
    expect(paths.issues.map((i) => i.path)).toEqual(['paths.0', 'paths.1', 'paths.2']);

    const typo = configError(() => createGitResetRollback({ dir: '/repo', branch: 'b', exclude: ['x'] } as never));
    expect(typo.message).toContain('exclude');

    const fs = configError(() => createGitResetRollback({ dir: '/repo', branch: 'b', fs: {} as never }));
    expect(fs.issues[0]?.path).toBe('fs');
  });

  it('accepts memfs as fs', () => {
    expect(() => createGitResetRollback({ dir: '/repo', branch: 'b', fs: memfs().fs })).not.toThrow();
  });
});

describe('branchNameProblem', () => {
  it.each([
    ['auto-iterate/nov30', undefined],
    ['run-1', undefined],
    ['', 'must not be empty'],
    ['refs/heads/x', 'give the short name'],
    ['a..b', '..'],
    ['a b', 'spaces'],
    ['x.lock', '.lock'],
    ['-x', '"-"'],
    ['a/', '"/"'],
    ['a/.hidden', 'start with "."'],
  ])('%j -> %s', (name, problem) => {
    const result = branchNameProblem(name);
    if (problem === undefined) expect(result).toBeUndefined();
    else expect(result).toContain(problem);
  });
});

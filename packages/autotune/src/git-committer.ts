import { isAbsolute, relative, sep } from 'node:path';
import { isLoopError, LoopError, parseOptions, type Clock } from '@loop/core';
import { commitAll, commitPaths, type GitCliContext } from '@loop/rollback-git/git';
import { z } from 'zod';
import type { Committer } from './committer.js';

/** Options of {@link createGitCommitter}. */
export interface GitCommitterOptions {
  /** The app repository root (absolute): code commits go here, and artifacts under it that git does not ignore. */
  dir: string;
  /**
   * The private artifact workspace (absolute), a git repository; artifacts under it are committed there (seed 004).
   * @default none: artifacts ignored by the app repository are left uncommitted
   */
  artifactDir?: string;
  /** Commit author and committer. @default the environment's `GIT_AUTHOR_*`, else `loop <loop@localhost>` */
  author?: { name: string; email: string };
  /** The clock for commit dates (the same inputs then give the same commit ids). @default git's own (the real time) */
  clock?: Clock;
}

/** zod schema of {@link GitCommitterOptions}. */
export const gitCommitterOptionsSchema = z.object({
  dir: z.string().refine(isAbsolute, 'dir must be an absolute path'),
  artifactDir: z.string().refine(isAbsolute, 'artifactDir must be an absolute path').optional(),
  author: z.object({ name: z.string().min(1), email: z.string().min(1) }).optional(),
  clock: z
    .custom<Clock>(
      (v) => typeof v === 'object' && v !== null && typeof (v as Clock).now === 'function',
      'must be a Clock with a now function',
    )
    .optional(),
});

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * A {@link Committer} on `@loop/rollback-git` (this package spawns no git itself). Code commits are
 * `commitAll` in the app repository (every change, `git add -A`). Artifact commits are
 * `commitPaths` of only the named files, each in the repository that owns it: the artifact
 * workspace for files under `artifactDir`, the app repository otherwise; files the app repository
 * ignores (seed 004: projects/autotune/ is ignored by the app repo) are skipped there. Nothing to
 * commit makes no commit and is not an error, so a commit the controller re-runs after a kill is
 * made once.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options.
 * @throws {LoopError} `STATE_WRITE_FAILED` from `commit` when a git command fails, with its stderr.
 */
export function createGitCommitter(options: GitCommitterOptions): Committer {
  const opts = parseOptions(gitCommitterOptionsSchema, options, 'autotune-git');
  const context = (cwd: string): GitCliContext => ({
    cwd,
    ...(opts.author ? { author: opts.author } : {}),
    ...(opts.clock ? { now: opts.clock.now() } : {}),
  });
  const wrap = async (what: string, fn: () => Promise<unknown>): Promise<void> => {
    try {
      await fn();
    } catch (error) {
      if (!isLoopError(error)) throw error;
      throw new LoopError('STATE_WRITE_FAILED', `[loop] [autotune-git] ${what}: ${error.message}`, {
        cause: error,
        details: error.details,
      });
    }
  };
  return {
    name: 'git',
    commit: async (request) => {
      if (request.kind === 'code') {
        await wrap('code commit failed', () => commitAll(context(opts.dir), request.message));
        return;
      }
      const inArtifacts: string[] = [];
      const inApp: string[] = [];
      for (const file of request.files) {
        if (opts.artifactDir !== undefined && isInside(file, opts.artifactDir)) inArtifacts.push(file);
        else if (isInside(file, opts.dir)) inApp.push(file);
      }
      if (opts.artifactDir !== undefined && inArtifacts.length > 0) {
        const artifactDir = opts.artifactDir;
        await wrap('artifacts commit failed', () => commitPaths(context(artifactDir), inArtifacts, request.message));
      }
      if (inApp.length > 0)
        await wrap('artifacts commit failed', () => commitPaths(context(opts.dir), inApp, request.message));
    },
  };
}

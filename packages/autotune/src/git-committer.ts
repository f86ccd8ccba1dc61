import { execFile } from 'node:child_process';
import { isAbsolute, relative, sep } from 'node:path';
import { LoopError, parseOptions } from '@loop/core';
import { z } from 'zod';
import type { Committer } from './committer.js';

/** Options of {@link createGitCommitter}. */
export interface GitCommitterOptions {
  /** The app repository root (absolute): code commits go here, and artifacts under it that git does not ignore. */
  dir: string;
  /** The private artifact workspace (absolute), a git repository; artifacts under it are committed there (seed 004). @default none: artifacts ignored by the app repository are left uncommitted */
  artifactDir?: string;
  /** Commit identity passed as `-c user.name/user.email`. @default the git configuration's */
  author?: { name: string; email: string };
  /** The git executable. @default 'git' */
  gitPath?: string;
}

/** zod schema of {@link GitCommitterOptions}. */
export const gitCommitterOptionsSchema = z.object({
  dir: z.string().refine(isAbsolute, 'dir must be an absolute path'),
  artifactDir: z.string().refine(isAbsolute, 'artifactDir must be an absolute path').optional(),
  author: z.object({ name: z.string().min(1), email: z.string().min(1) }).optional(),
  gitPath: z.string().min(1).default('git'),
});

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * A {@link Committer} on the git CLI (child_process `execFile`, no shell). Code commits stage every
 * change in the app repository (`git add -A`) and commit if anything is staged. Artifact commits
 * stage and commit only the named files, each in the repository that owns it: the artifact
 * workspace for files under `artifactDir`, the app repository otherwise; files the app repository
 * ignores (seed 004: projects/autotune/ is ignored by the app repo) are skipped there. Nothing to
 * commit is not an error.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options.
 * @throws {LoopError} `STATE_WRITE_FAILED` from `commit` when a git command fails, with its stderr.
 */
export function createGitCommitter(options: GitCommitterOptions): Committer {
  const opts = parseOptions(gitCommitterOptionsSchema, options, 'autotune-git');
  const identity = opts.author ? ['-c', `user.name=${opts.author.name}`, '-c', `user.email=${opts.author.email}`] : [];

  const git = (cwd: string, args: string[], allowed: number[] = [0]): Promise<GitResult> =>
    new Promise((resolvePromise, reject) => {
      execFile(opts.gitPath, [...identity, ...args], { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (allowed.includes(code)) resolvePromise({ code, stdout, stderr });
        else reject(new LoopError('STATE_WRITE_FAILED', `[loop] [autotune-git] git ${args.join(' ')} failed in ${cwd}: ${(stderr || (error as Error | null)?.message || '').trim()}`, { cause: error, details: { cwd, args } }));
      });
    });

  const commitPaths = async (repo: string, files: string[], message: string, skipIgnored: boolean) => {
    let paths = files.map((f) => relative(repo, f));
    if (skipIgnored) {
      const kept: string[] = [];
      for (const p of paths) if ((await git(repo, ['check-ignore', '-q', '--', p], [0, 1])).code === 1) kept.push(p);
      paths = kept;
    }
    if (paths.length === 0) return;
    await git(repo, ['add', '--', ...paths]);
    const staged = await git(repo, ['diff', '--cached', '--quiet', '--', ...paths], [0, 1]);
    if (staged.code === 1) await git(repo, ['commit', '-q', '-m', message, '--', ...paths]);
  };

  return {
    name: 'git',
    commit: async (request) => {
      if (request.kind === 'code') {
        await git(opts.dir, ['add', '-A']);
        const staged = await git(opts.dir, ['diff', '--cached', '--quiet'], [0, 1]);
        if (staged.code === 1) await git(opts.dir, ['commit', '-q', '-m', request.message]);
        return;
      }
      const inArtifacts: string[] = [];
      const inApp: string[] = [];
      for (const file of request.files) {
        if (opts.artifactDir !== undefined && isInside(file, opts.artifactDir)) inArtifacts.push(file);
        else if (isInside(file, opts.dir)) inApp.push(file);
      }
      if (opts.artifactDir !== undefined) await commitPaths(opts.artifactDir, inArtifacts, request.message, false);
      await commitPaths(opts.dir, inApp, request.message, true);
    },
  };
}

import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createGitCommitter,
  initAutotune,
  runControllerIteration,
  type AutotuneControllerOptions,
  type IterationResult,
  type SyncCheck,
} from '@loop/autotune';
import type { Clock } from '@loop/core';
import { runGit } from '@loop/rollback-git/git';
import { createScriptedWorker } from './scripted-worker.js';

const template = join(dirname(dirname(fileURLToPath(import.meta.url))), 'template');
const author = { name: 'autotune-example', email: 'autotune@example.invalid' };
/** git through @loop/rollback-git (the one place that spawns it), trimmed stdout. */
export const git = async (cwd: string, ...args: string[]): Promise<string> =>
  (await runGit({ cwd, author }, args)).trim();

/**
 * The sync check (seed 004 "Verify sync"): rebuild the evaluation target (`build/tasks`) from the
 * latest commit, then confirm it matches the working tree. Uncommitted code means a stale target.
 */
export function createRebuildSyncCheck(): SyncCheck {
  return {
    name: 'rebuild-from-HEAD',
    verify: async ({ dir }) => {
      const build = join(dir, 'build', 'tasks');
      mkdirSync(build, { recursive: true });
      for (const file of readdirSync(join(dir, 'tasks'))) {
        const committed = await git(dir, 'show', `HEAD:tasks/${file}`);
        writeFileSync(join(build, file), `${committed}\n`);
        if (committed !== readFileSync(join(dir, 'tasks', file), 'utf8').trim())
          return { ok: false, reason: `tasks/${file} differs from HEAD: commit before evaluating` };
      }
      return { ok: true };
    },
  };
}

/**
 * Copies the template into `root/app`, makes it and `root/artifacts` git repositories, and creates the control files.
 */
export async function setUpWorkspace(root: string): Promise<{ dir: string; artifactDir: string }> {
  const dir = join(root, 'app');
  const artifactDir = join(root, 'artifacts');
  cpSync(template, dir, { recursive: true });
  // Seed 004: artifact files under projects/autotune/ are ignored by the app repository.
  writeFileSync(join(dir, '.gitignore'), 'projects/\nbuild/\n');
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'add', '.');
  await git(dir, 'commit', '-q', '-m', 'initial tasks');
  mkdirSync(artifactDir, { recursive: true });
  await git(artifactDir, 'init', '-q', '-b', 'main');
  await git(artifactDir, 'commit', '-q', '--allow-empty', '-m', 'artifact workspace');
  // The controller's step cursor and journal (projects/autotune/run/) are scratch state, not artifacts.
  writeFileSync(join(artifactDir, '.gitignore'), 'projects/autotune/run/\n');
  await git(artifactDir, 'add', '.gitignore');
  await git(artifactDir, 'commit', '-q', '-m', 'ignore the controller run directory');
  await initAutotune({ dir, artifactDir });
  return { dir, artifactDir };
}

/**
 * Runs the example: one controller iteration after another (each could be its own process), until
 * loop_state.json says complete. `onIteration` receives each iteration's result.
 */
export async function runExample(
  root: string,
  onIteration: (result: IterationResult) => void = () => {},
  clock?: Clock,
): Promise<{ dir: string; artifactDir: string; results: IterationResult[] }> {
  const { dir, artifactDir } = await setUpWorkspace(root);
  return { dir, artifactDir, results: await runIterations(dir, artifactDir, onIteration, clock) };
}

/** The options of one iteration of the example (`over` replaces any of them). */
export function exampleOptions(
  dir: string,
  artifactDir: string,
  clock?: Clock,
  over: Partial<AutotuneControllerOptions> = {},
): AutotuneControllerOptions {
  return {
    dir,
    artifactDir,
    worker: createScriptedWorker(
      (d) => join(d, 'eval', 'vectors.json'),
      (d) => join(d, 'build', 'tasks'),
    ),
    syncCheck: createRebuildSyncCheck(),
    committer: createGitCommitter({ dir, artifactDir, author, ...(clock ? { clock } : {}) }),
    ...(clock ? { clock } : {}),
    ...over,
  };
}

/** Runs iterations of an existing workspace until one does not continue (at most 20). */
export async function runIterations(
  dir: string,
  artifactDir: string,
  onIteration: (result: IterationResult) => void = () => {},
  clock?: Clock,
): Promise<IterationResult[]> {
  const results: IterationResult[] = [];
  for (let i = 0; i < 20; i += 1) {
    const result = await runControllerIteration(exampleOptions(dir, artifactDir, clock));
    results.push(result);
    onIteration(result);
    if (result.outcome !== 'continue') break;
  }
  return results;
}

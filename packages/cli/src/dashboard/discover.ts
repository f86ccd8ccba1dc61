import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { RUN_FILES } from '@loop/auto-iterate';
import { resolveResultsSource } from '../read/results-source.js';
import { lockPath } from '../workspace-status.js';

/** One run the dashboard shows: a workspace and its results.tsv. */
export interface RunRef {
  /** Stable id: the results.tsv's path relative to the dashboard's folder (`.`-free, `/`-separated). */
  readonly id: string;
  /** The label on the page: the workspace's path relative to the folder (the folder's name for itself). */
  readonly label: string;
  /** The workspace (absolute): `.loop/state.json` and the lock live here. */
  readonly dir: string;
  /** The run's results.tsv (absolute; it may not exist yet). */
  readonly results: string;
  /**
   * The lock a live run holds (core `acquireLock`'s path): auto-iterate's `.git/loop-workspace`, an autoresearch pass's
   * `<task folder>/pass`.
   */
  readonly lock: string;
  /**
   * The engine's `.loop/state.json` (auto-iterate), `undefined` for an autoresearch pass (its state is the pipeline's).
   */
  readonly state: string | undefined;
}

/** Folders never searched for runs. */
const SKIP = new Set(['node_modules', '.git', '.loop', 'dist']);

/**
 * The runs of one workspace: its auto-iterate results (`.loop/cli.json`'s `results`, else results.tsv) and each
 * autoresearch task's.
 */
async function runsOf(root: string, dir: string): Promise<RunRef[]> {
  const found: RunRef[] = [];
  const rel = relative(root, dir).split('\\').join('/');
  const label = rel === '' ? basename(root) : rel;
  if (existsSync(join(dir, '.loop')) || existsSync(join(dir, 'results.tsv'))) {
    const source = await resolveResultsSource(dir, dir);
    found.push({
      id: relative(root, source.results).split('\\').join('/'),
      label,
      dir,
      results: source.results,
      lock: lockPath(dir),
      state: join(dir, RUN_FILES.state),
    });
  }
  // An autoresearch pass (seed 002) keeps its log under .aid/pipeline/autoresearch/<task>/.
  const aid = join(dir, '.aid', 'pipeline', 'autoresearch');
  const tasks = await readdir(aid, { withFileTypes: true }).catch(() => []);
  for (const t of tasks) {
    const results = join(aid, t.name, 'results.tsv');
    if (t.isDirectory() && existsSync(results))
      found.push({
        id: relative(root, results).split('\\').join('/'),
        label: `${label} (${t.name})`,
        dir,
        results,
        lock: join(aid, t.name, 'pass'),
        state: undefined,
      });
  }
  return found;
}

/**
 * Finds the runs under `root`: `root` itself and its folders down to `depth` levels (default 2),
 * each a workspace when it holds `.loop/` or results.tsv (an auto-iterate run, seed 003's files)
 * or `.aid/pipeline/autoresearch/<task>/results.tsv` (an autoresearch pass, seed 002). Dot
 * folders, node_modules and dist are not searched. Sorted by id. Reads only; never throws for
 * unreadable folders (they hold no runs).
 */
export async function discoverRuns(root: string, depth = 2): Promise<RunRef[]> {
  const runs: RunRef[] = [];
  const walk = async (dir: string, left: number): Promise<void> => {
    runs.push(...(await runsOf(root, dir)));
    if (left === 0) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries)
      if (e.isDirectory() && !e.name.startsWith('.') && !SKIP.has(e.name)) await walk(join(dir, e.name), left - 1);
  };
  await walk(root, depth);
  return runs.sort((a, b) => a.id.localeCompare(b.id));
}

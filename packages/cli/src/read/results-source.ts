import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { RUN_FILES } from '@loop/auto-iterate';
import { sanitizeCell } from '@loop/core/files';
import { loadConfig, findConfigFile } from '../load-config.js';
import { detectPreset } from '../presets/detect.js';
import { parseResults, type ResultsData } from '../report/results.js';
import { UsageError } from '../usage-error.js';

/** `run-tag.ts`'s CLI_STATE_FILE, repeated so the read commands load without auto-iterate's run machinery. */
const CLI_STATE_FILE = '.loop/cli.json';

/** A run's results.tsv and the workspace it belongs to. */
export interface ResultsSource {
  /** results.tsv (absolute). */
  readonly results: string;
  /** The workspace (absolute): the git repository of an auto-iterate run. */
  readonly dir: string;
}

/** results.tsv of an auto-iterate workspace: `.loop/cli.json`'s `results` (a target's folder), else `results.tsv`. */
function workspaceResults(dir: string): string {
  try {
    const cli = JSON.parse(readFileSync(join(dir, CLI_STATE_FILE), 'utf8')) as { results?: unknown };
    if (typeof cli.results === 'string') return join(dir, cli.results);
  } catch {
    // no cli.json: the default name
  }
  return join(dir, RUN_FILES.results);
}

/**
 * Finds the results.tsv a read command (`loop log`, `loop diff`, `loop report`) means by `target`:
 * a `.tsv` file itself; a config file (auto-iterate: its workspace's; autoresearch:
 * `.aid/pipeline/autoresearch/<taskId>/results.tsv`); a workspace folder; or, with no target, the
 * config in `cwd` if there is one, else `cwd` as the workspace.
 *
 * @throws {UsageError} for a collie or autotune config (no results.tsv) or a missing file.
 * @throws {ConfigFileError} `CONFIG_INVALID` for an invalid config file.
 */
export async function resolveResultsSource(target: string | undefined, cwd: string): Promise<ResultsSource> {
  let path: string;
  if (target === undefined) {
    try {
      path = findConfigFile(undefined, cwd);
    } catch {
      path = cwd;
    }
  } else path = resolve(cwd, target);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new UsageError(`${path} does not exist`);
  if (stat.isDirectory()) return { results: workspaceResults(path), dir: path };
  if (/\.tsv$/i.test(path)) return { results: path, dir: resolve(path, '..') };
  const preset = detectPreset(path);
  if (preset === 'autoresearch') {
    const { loadAutoresearchConfig } = await import('../presets/load-autoresearch-config.js');
    const loaded = await loadAutoresearchConfig(path);
    return { results: loaded.results, dir: loaded.dir };
  }
  if (preset !== 'auto-iterate')
    throw new UsageError(
      (
        `${path} is ${/^[aeiou]/.test(preset) ? 'an' : 'a'} ${preset} config: it ` +
        `keeps no results.tsv (use "loop status ${target ?? ''}")`
      ).replace(' )', ')'),
    );
  const loaded = await loadConfig(path);
  return { results: workspaceResults(loaded.dir), dir: loaded.dir };
}

/**
 * Reads and parses the results.tsv of `source` (either form).
 *
 * @throws {UsageError} when there is no results.tsv yet.
 * @throws {LoopError} `RESULTS_CORRUPT` naming the line of a malformed file.
 */
export async function readResultsOf(source: ResultsSource): Promise<ResultsData> {
  if (!existsSync(source.results))
    throw new UsageError(`no results yet: ${source.results} does not exist (start a run with "loop run")`);
  return parseResultsFile(await readFile(source.results, 'utf8'), source.results);
}

/**
 * {@link parseResults} for the text of the results.tsv at `path`; an autoresearch pass's rows get
 * their descriptions from the twin `results.jsonl` next to it (the idea, a crash's reason), where
 * results.tsv only has status and snapshot.
 *
 * @throws {LoopError} `RESULTS_CORRUPT` naming the line of a malformed file.
 */
export async function parseResultsFile(text: string, path: string): Promise<ResultsData> {
  const data = parseResults(text, path);
  return data.form === 'autoresearch' ? withTwinDescriptions(data, await twinDescriptions(path)) : data;
}

/**
 * The descriptions of an autoresearch results.tsv's rows from its full-precision twin
 * (`results.jsonl` next to it, written by `@loop/autoresearch` before each row), keyed
 * `<iteration> <status>`, the last line winning as the pass's own reader does. Empty when there is
 * no twin (seed 002's results.tsv has no description column); unparsable lines are skipped.
 */
async function twinDescriptions(results: string): Promise<Map<string, string>> {
  const byRow = new Map<string, string>();
  const text = await readFile(results.replace(/\.tsv$/i, '') + '.jsonl', 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    try {
      const row = JSON.parse(line) as { iteration?: unknown; status?: unknown; description?: unknown };
      if (
        typeof row.iteration === 'number' &&
        typeof row.status === 'string' &&
        typeof row.description === 'string' &&
        row.description !== ''
      )
        byRow.set(`${row.iteration} ${row.status}`, row.description);
    } catch {
      // a blank or torn line
    }
  }
  return byRow;
}

/** `data` with each point's description taken from `descriptions` where the twin has one (else status and snapshot). */
function withTwinDescriptions(data: ResultsData, descriptions: ReadonlyMap<string, string>): ResultsData {
  if (descriptions.size === 0) return data;
  return {
    ...data,
    points: data.points.map((p) => ({
      ...p,
      description: sanitizeCell(descriptions.get(`${p.iteration} ${p.status}`) ?? p.description),
    })),
  };
}

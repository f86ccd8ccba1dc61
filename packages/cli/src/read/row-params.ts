import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { findConfigFile, loadConfig } from '../load-config.js';

/** A parameter's value as the config file held it: a scalar, or JSON text for anything else. */
export type ParamValue = string | number | boolean | null;

/** The parameters of each row's candidate: column names in the space's order, values by iteration. */
export interface RowParams {
  /** The proposer's config file, relative to the workspace (`proposer.file`), or `undefined` when there is none. */
  readonly file?: string;
  /** The parameter names: the keys of the proposer's `space`, in the config's order. */
  readonly names: readonly string[];
  /** Each row's values (rows without a commit, or whose file could not be read, are absent). */
  readonly byIteration: ReadonlyMap<number, Readonly<Record<string, ParamValue>>>;
}

const NONE: RowParams = { names: [], byIteration: new Map() };

/** The config file of a workspace's run: the one `.loop/cli.json` names, else the default one in `dir`. */
function runConfigFile(dir: string): string | undefined {
  try {
    const named = (JSON.parse(readFileSync(join(dir, '.loop', 'cli.json'), 'utf8')) as { config?: unknown }).config;
    if (typeof named === 'string' && existsSync(named)) return named;
  } catch {
    // no cli.json: a run of another version, or results.tsv alone
  }
  try {
    return findConfigFile(undefined, dir);
  } catch {
    return undefined;
  }
}

const asValue = (v: unknown): ParamValue =>
  v === null || ['string', 'number', 'boolean'].includes(typeof v) ? (v as ParamValue) : JSON.stringify(v);

/**
 * The parameters each row's candidate was evaluated with, read from the config file the run's
 * proposer writes (`proposer.file` of a `tpe` or `mutator` proposer) as committed in the row's
 * commit (discarded candidates stay reachable under `refs/loop/discarded/<n>`): one `git cat-file
 * --batch` for all rows. The names are the keys of the proposer's `space`. An agent proposer, a
 * workspace without a config or git, or a file that does not parse gives no parameters (never throws).
 *
 * @param dir - the workspace (where results.tsv and the config are)
 * @param rows - the rows: iteration and commit id (`''` when the row has none)
 */
export async function readRowParams(
  dir: string,
  rows: readonly { readonly iteration: number; readonly id: string }[],
): Promise<RowParams> {
  const configFile = runConfigFile(dir);
  if (!configFile) return NONE;
  let proposer;
  try {
    proposer = (await loadConfig(configFile)).config.proposer;
  } catch {
    return NONE;
  }
  if (proposer.type !== 'tpe' && proposer.type !== 'mutator') return NONE;
  const names = Object.keys(proposer.space);
  const withId = rows.filter((r) => /^[0-9a-f]{4,40}$/i.test(r.id));
  const { readFileAtRevs } = await import('@loop/rollback-git/git');
  const blobs = await readFileAtRevs(
    { cwd: dir },
    proposer.file,
    withId.map((r) => r.id),
  ).catch(() => withId.map(() => undefined));
  const yaml = /\.ya?ml$/i.test(proposer.file);
  const parse = (t: string): unknown => (yaml ? parseYaml(t) : JSON.parse(t));
  const byIteration = new Map<number, Record<string, ParamValue>>();
  withId.forEach((row, i) => {
    const text = blobs[i];
    if (text === undefined) return;
    let config: unknown;
    try {
      config = parse(text);
    } catch {
      return;
    }
    if (!config || typeof config !== 'object' || Array.isArray(config)) return;
    const values = config as Record<string, unknown>;
    byIteration.set(row.iteration, Object.fromEntries(names.map((n) => [n, n in values ? asValue(values[n]) : null])));
  });
  return { file: proposer.file, names, byIteration };
}

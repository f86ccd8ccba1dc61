import { dirname, isAbsolute, join, resolve } from 'node:path';
import { loadConfigFileOf } from '../load-config.js';
import { AUTORESEARCH_CONFIG_KIND, type AutoresearchPresetConfig } from './autoresearch-config.js';
import { autoresearchResultsFile } from './autoresearch-run.js';

/** A loaded `preset: autoresearch` config with its absolute workspace. */
export interface LoadedAutoresearchConfig {
  /** The validated config. */
  readonly config: AutoresearchPresetConfig;
  /** The config file (absolute). */
  readonly file: string;
  /** The workspace (absolute). */
  readonly dir: string;
  /** results.tsv (absolute). */
  readonly results: string;
}

/**
 * Loads and validates a `preset: autoresearch` config file.
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` naming the file, line and field.
 */
export async function loadAutoresearchConfig(file: string): Promise<LoadedAutoresearchConfig> {
  const config = await loadConfigFileOf(AUTORESEARCH_CONFIG_KIND, file);
  const dir = isAbsolute(config.dir) ? config.dir : resolve(dirname(file), config.dir);
  return { config, file, dir, results: join(dir, autoresearchResultsFile(config)) };
}

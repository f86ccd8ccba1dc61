import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { loopConfigJsonSchema, loopConfigSchema, type LoopConfig, type LoopConfigInput } from './config.js';
import { ConfigFileError, type ConfigFileIssue } from './config-file-error.js';
import { describeIssue } from './describe-config-issue.js';
import { offsetOf } from './field-offset.js';

export { ConfigFileError, type ConfigFileIssue };

/**
 * A kind of config file: its zod schema and its JSON Schema (for the allowed keys of "unknown
 * field" messages). `loop` configs use {@link LOOP_CONFIG_KIND}; `loop collie` has its own.
 */
export interface ConfigKind<S extends z.ZodType = z.ZodType> {
  /** The zod schema the parsed data is validated with. */
  readonly schema: S;
  /** The JSON Schema of {@link ConfigKind.schema} (input side). */
  readonly jsonSchema: () => Record<string, unknown>;
}

/** The `loop run` config kind (preset auto-iterate). */
export const LOOP_CONFIG_KIND: ConfigKind<typeof loopConfigSchema> = {
  schema: loopConfigSchema,
  jsonSchema: loopConfigJsonSchema,
};

import { DEFAULT_CONFIG_FILES } from './cli-constants.js';

export { DEFAULT_CONFIG_FILES };

/**
 * Config file extensions loaded as modules (TypeScript through jiti, or JavaScript); the default export is the config.
 */
export const MODULE_CONFIG_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'] as const;

/**
 * Types a config written in TypeScript (`loop.config.ts`); returns `config` unchanged.
 *
 * @example
 * import { defineConfig } from '@loop/cli';
 *
 * export default defineConfig({
 *   targetFiles: ['config.json'],
 *   runCommand: 'node train.mjs',
 *   metricName: 'val_loss',
 *   proposer: { type: 'mutator', file: 'config.json', space: { lr: { min: 1e-4, max: 1e-1, scale: 'log' } } },
 * });
 */
export function defineConfig(config: LoopConfigInput): LoopConfigInput {
  return config;
}

/** A loaded config: the validated values, the file and the absolute workspace directory. */
export interface LoadedConfig {
  /** The validated config, defaults applied. */
  readonly config: LoopConfig;
  /** Absolute path of the config file. */
  readonly file: string;
  /** Absolute path of the workspace (`dir` resolved against the file's folder). */
  readonly dir: string;
}

/**
 * Finds the config file: `file` if given (resolved against `cwd`), else the first of `names`
 * (default {@link DEFAULT_CONFIG_FILES}) in `cwd`; `hint` ends the "not found" message.
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` when no file is found.
 */
export function findConfigFile(
  file: string | undefined,
  cwd: string,
  names: readonly [string, ...string[]] = DEFAULT_CONFIG_FILES,
  hint = 'run "loop init" to write one, or name it: "loop run <config>"',
): string {
  if (file !== undefined) return resolve(cwd, file);
  for (const name of names) {
    const path = resolve(cwd, name);
    if (existsSync(path)) return path;
  }
  throw new ConfigFileError(resolve(cwd, names[0]), [
    { path: '', message: `no config file found in ${cwd} (looked for ${names.join(', ')}); ${hint}` },
  ]);
}

/**
 * Parses and validates config text (YAML, or JSON when `file` ends in `.json`). Every issue names
 * the file, the line and the field.
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` for a syntax error or an invalid field.
 */
export function parseConfigText(text: string, file: string): LoopConfig {
  return parseConfigTextOf(LOOP_CONFIG_KIND, text, file);
}

/**
 * {@link parseConfigText} for any {@link ConfigKind}: YAML (or JSON) text validated with
 * `kind.schema`, every issue as `<file>:<line>: <field>: <what is wrong>`.
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` for a syntax error or an invalid field.
 */
export function parseConfigTextOf<S extends z.ZodType>(kind: ConfigKind<S>, text: string, file: string): z.output<S> {
  const json = extname(file).toLowerCase() === '.json';
  if (json) {
    try {
      JSON.parse(text);
    } catch (error) {
      throw new ConfigFileError(file, [{ path: '', message: `not valid JSON: ${(error as Error).message}` }], error);
    }
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) {
    throw new ConfigFileError(
      file,
      [
        {
          path: '',
          line: lineCounter.linePos(syntax.pos[0]).line,
          message: `not valid YAML: ${syntax.message.split('\n')[0]}`,
        },
      ],
      syntax,
    );
  }
  const data: unknown = doc.toJS() ?? {};
  return validateConfig(kind, data, file, (path, unknownKey) => {
    const offset = offsetOf(doc, path, unknownKey);
    return offset === undefined ? undefined : lineCounter.linePos(offset).line;
  });
}

/** Validates parsed config data; `lineOf` places an issue in the file when it can. */
function validateConfig<S extends z.ZodType>(
  kind: ConfigKind<S>,
  data: unknown,
  file: string,
  lineOf: (path: readonly PropertyKey[], unknownKey?: string) => number | undefined = () => undefined,
): z.output<S> {
  const result = kind.schema.safeParse(data);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue): ConfigFileIssue => {
    const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    const described = describeIssue(issue, data, kind.jsonSchema);
    const line = lineOf(described.path, unknownKey) ?? lineOf(issue.path, unknownKey);
    const path = described.path.map(String).join('.');
    return { path, message: described.message, ...(line === undefined ? {} : { line }) };
  });
  throw new ConfigFileError(file, issues, result.error);
}

/**
 * Loads a config module (`.ts` through jiti, which strips the types; or `.js`) and validates its
 * default export: the config object, a promise of it, or a function returning either. Issues name
 * the file and the field (modules have no line positions).
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` when the module fails to load or its config is invalid.
 */
export async function loadConfigModule(file: string): Promise<LoopConfig> {
  return loadConfigModuleOf(LOOP_CONFIG_KIND, file);
}

/** {@link loadConfigModule} for any {@link ConfigKind}. */
export async function loadConfigModuleOf<S extends z.ZodType>(kind: ConfigKind<S>, file: string): Promise<z.output<S>> {
  let data: unknown;
  try {
    const { createJiti } = await import('jiti');
    // No module or transform cache: a config edited between two runs of one process is re-read.
    const jiti = createJiti(pathToFileURL(file).href, { moduleCache: false, fsCache: false, interopDefault: false });
    const mod = (await jiti.import(file)) as Record<string, unknown> | null | undefined;
    data = mod && typeof mod === 'object' && 'default' in mod ? mod['default'] : undefined;
    if (typeof data === 'function') data = await (data as () => unknown)();
  } catch (error) {
    const message = ((error as Error).message ?? String(error)).split('\n')[0];
    throw new ConfigFileError(file, [{ path: '', message: `cannot load the config module: ${message}` }], error);
  }
  if (data === null || typeof data !== 'object') {
    throw new ConfigFileError(file, [
      {
        path: '',
        message:
          `the config module's default export must be the config object, ` +
          `found ${data === undefined ? 'no default export' : typeof data}`,
      },
    ]);
  }
  return validateConfig(kind, data, file);
}

/**
 * Reads, parses and validates a config file of any {@link ConfigKind} (YAML, JSON, or a
 * `.ts`/`.js` module whose default export is the config).
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` when the file is missing, malformed or invalid.
 */
export async function loadConfigFileOf<S extends z.ZodType>(kind: ConfigKind<S>, file: string): Promise<z.output<S>> {
  if ((MODULE_CONFIG_EXTENSIONS as readonly string[]).includes(extname(file).toLowerCase())) {
    if (!existsSync(file))
      throw new ConfigFileError(file, [{ path: '', message: 'cannot read the config file: ENOENT' }]);
    return loadConfigModuleOf(kind, file);
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigFileError(
      file,
      [
        {
          path: '',
          message: `cannot read the config file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        },
      ],
      error,
    );
  }
  return parseConfigTextOf(kind, text, file);
}

/**
 * Reads, parses and validates a config file (YAML, JSON, or a `.ts`/`.js` module: see
 * {@link loadConfigModule}), and resolves its workspace directory.
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` when the file is missing, malformed or invalid.
 */
export async function loadConfig(file: string): Promise<LoadedConfig> {
  const config = await loadConfigFileOf(LOOP_CONFIG_KIND, file);
  return { config, file, dir: isAbsolute(config.dir) ? config.dir : resolve(dirname(file), config.dir) };
}

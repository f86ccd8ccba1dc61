import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { ConfigError, type ConfigIssue } from '@loop/core';
import { pathToFileURL } from 'node:url';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { loopConfigJsonSchema, loopConfigSchema, type LoopConfig, type LoopConfigInput } from './config.js';
import { closestMatch } from './did-you-mean.js';
import { allowedKeys, type JsonSchema } from './config-allowed-keys.js';

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

/** Config file extensions loaded as modules (TypeScript through jiti, or JavaScript); the default export is the config. */
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

/** One invalid field of a config file, with the 1-based line it is on (when known). */
export interface ConfigFileIssue extends ConfigIssue {
  /** 1-based line in the file, or `undefined` when the field has no position. */
  line?: number;
}

/**
 * A `CONFIG_INVALID` error for a config file. Its message lists every issue as
 * `<file>:<line>: <field>: <what is wrong>` (with the allowed values where there is a fixed set).
 */
export class ConfigFileError extends ConfigError {
  /** The config file (absolute path). */
  readonly file: string;
  /** Every invalid field, with its line. */
  override readonly issues: readonly ConfigFileIssue[];

  constructor(file: string, issues: readonly ConfigFileIssue[], cause?: unknown) {
    super(file, issues, cause);
    this.file = file;
    this.issues = issues;
    const byLine = [...issues].sort(
      (a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER),
    );
    const lines = byLine.map(
      (i) => `  ${file}${i.line === undefined ? '' : `:${i.line}`}: ${i.path || '(root)'}: ${i.message}`,
    );
    this.message = `[loop] [cli] invalid config ${file}:\n${lines.join('\n')}`;
  }
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

type Node = { range?: [number, number, number] | null | undefined } | null | undefined;

/** The key node of `key` in the map `collection`, if it is one. */
function keyNode(collection: unknown, key: PropertyKey): Node {
  if (!isMap(collection)) return undefined;
  return collection.items.find((p) => isScalar(p.key) && p.key.value === key)?.key as Node;
}

/**
 * The offset of the deepest node on `path` that exists. An unknown key points at itself; a
 * missing key at its parent's own key (`harness:` for a missing `harness.command`, where the field
 * would go), or, for a missing top-level field, at the first line of the document's map. Used
 * by `config-error-lines.ts` too (package-internal: not exported from the entry point).
 */
export function offsetOf(doc: Document, path: readonly PropertyKey[], unknownKey?: string): number | undefined {
  for (let n = path.length; n >= 0; n -= 1) {
    const node = doc.getIn(path.slice(0, n) as unknown[], true) as Node;
    if (node && node.range) {
      if (n === path.length && unknownKey !== undefined) {
        const key = keyNode(node, unknownKey);
        if (key?.range) return key.range[0];
      }
      if (n < path.length && n > 0) {
        const parent = n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1) as unknown[], true);
        const key = keyNode(parent, path[n - 1]!);
        if (key?.range) return key.range[0];
      }
      // A scalar value: its own line. A missing top-level key: the root map's first line.
      return node.range[0];
    }
  }
  return undefined;
}

/** The start of an "allowed values" message: a missing field, or the value that is not allowed. */
const notAllowed = (value: unknown) =>
  value === undefined ? 'missing required field' : `${JSON.stringify(value)} is not allowed`;

/** Rewrites a zod issue's message for people: missing fields, allowed values and keys (with the closest allowed key). */
function describeIssue(issue: z.core.$ZodIssue, data: unknown, jsonSchema: () => Record<string, unknown>): string {
  const value = issue.path.reduce<unknown>(
    (v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k as PropertyKey],
    data,
  );
  switch (issue.code) {
    case 'invalid_type':
      return value === undefined
        ? `missing required field (expected ${issue.expected})`
        : `expected ${issue.expected}, found ${JSON.stringify(value)}`;
    case 'invalid_value':
      return `${notAllowed(value)}; allowed values: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      if (options) return `${notAllowed(value)}; allowed values: ${options.map((v) => JSON.stringify(v)).join(', ')}`;
      // The branch the value came closest to (fewest issues, then fewest unknown keys) names the
      // field under this one and what is wrong with it, an unknown key first (a misspelled `mxa`
      // is why `max` is missing); branches tied on an issue about the value itself say nothing more.
      const unknown = (b: z.core.$ZodIssue[]) =>
        b.reduce((n, i) => n + (i.code === 'unrecognized_keys' ? i.keys.length : 0), 0);
      const branches = ((issue as { errors?: z.core.$ZodIssue[][] }).errors ?? []).filter((b) => b.length > 0);
      const fewest = Math.min(...branches.map((b) => b.length));
      const fewestUnknown = Math.min(...branches.filter((b) => b.length === fewest).map(unknown));
      const closest = branches.filter((b) => b.length === fewest && unknown(b) === fewestUnknown);
      const first = closest[0]?.find((i) => i.code === 'unrecognized_keys') ?? closest[0]?.[0];
      if (first === undefined || (closest.length > 1 && first.path.length === 0)) return issue.message;
      const message = describeIssue(
        { ...first, path: [...issue.path, ...first.path] } as z.core.$ZodIssue,
        data,
        jsonSchema,
      );
      return first.path.length > 0 ? `${first.path.join('.')}: ${message}` : message;
    }
    case 'unrecognized_keys': {
      const allowed = allowedKeys(jsonSchema() as JsonSchema, issue.path, data);
      const named = issue.keys.map((k) => {
        const guess = closestMatch(k, allowed);
        return guess === undefined
          ? JSON.stringify(k)
          : `${JSON.stringify(k)} (did you mean ${JSON.stringify(guess)}?)`;
      });
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${named.join(', ')}; allowed fields: ${allowed.join(', ')}`;
    }
    default:
      return issue.message;
  }
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
    const line = lineOf(issue.path, unknownKey);
    const path = issue.path.map(String).join('.');
    return { path, message: describeIssue(issue, data, kind.jsonSchema), ...(line === undefined ? {} : { line }) };
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
        message: `the config module's default export must be the config object, found ${data === undefined ? 'no default export' : typeof data}`,
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

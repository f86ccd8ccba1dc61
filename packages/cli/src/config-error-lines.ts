import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { ConfigError } from '@loop/core';
import { LineCounter, parseDocument } from 'yaml';
import { ConfigFileError, type ConfigFileIssue } from './config-file-error.js';
import { offsetOf } from './field-offset.js';
import { MODULE_CONFIG_EXTENSIONS, type LoadedConfig } from './load-config.js';

/** `targetFiles.0` as `['targetFiles', 0]`: numeric segments as indexes. */
const segments = (path: string): (string | number)[] =>
  path === '' ? [] : path.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));

/**
 * The field of the config file an option path of the run (an auto-iterate option such as
 * `targetFiles.0`) comes from: the same path when the file sets that top-level field; for
 * `targetFiles` implied by a `target:` block, `target.path`; `undefined` when the file has no
 * such field (then the issue gets no line).
 */
function fieldOf(
  path: readonly (string | number)[],
  inFile: (key: string) => boolean,
): (string | number)[] | undefined {
  const [first] = path;
  if (typeof first !== 'string') return undefined;
  if (inFile(first)) return [...path];
  if (first === 'targetFiles' && inFile('target')) return ['target', 'path'];
  return undefined;
}

/**
 * A `CONFIG_INVALID` error raised after the config was loaded (by `createAutoIterate` or its
 * `run()`: e.g. `targetFiles.0: x.json does not exist in /ws`), re-thrown as a
 * {@link ConfigFileError} naming the config file and the line of each field it comes from, like
 * the schema's own errors: `/ws/loop.yaml:7: targetFiles.0: x.json does not exist in /ws`. Other
 * errors, errors already naming the file, module configs (no lines) and errors none of whose
 * fields is in the file are returned unchanged.
 *
 * @returns the error to throw (the original one kept as `cause`).
 */
export async function withConfigLines(error: unknown, loaded: Pick<LoadedConfig, 'file'>): Promise<unknown> {
  if (!(error instanceof ConfigError) || error instanceof ConfigFileError) return error;
  if ((MODULE_CONFIG_EXTENSIONS as readonly string[]).includes(extname(loaded.file).toLowerCase())) return error;
  let text: string;
  try {
    text = await readFile(loaded.file, 'utf8');
  } catch {
    return error;
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) return error;
  let located = false;
  const issues = error.issues.map((issue): ConfigFileIssue => {
    const field = fieldOf(segments(issue.path), (key) => doc.hasIn([key]));
    const offset = field && offsetOf(doc, field);
    if (!field || offset === undefined) return { path: issue.path, message: issue.message };
    located = true;
    return { path: field.join('.'), message: issue.message, line: lineCounter.linePos(offset).line };
  });
  return located ? new ConfigFileError(loaded.file, issues, error) : error;
}

import { ConfigError } from '@loop/core';
import { type ConfigIssue } from '@loop/core/contracts';

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

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@loop/core';
import { describe, expect, it } from 'vitest';
import { withConfigLines } from './config-error-lines.js';
import { ConfigFileError, loadConfig } from './load-config.js';

describe('withConfigLines: run-time config errors at their line in the config file', () => {
  it(
    'a JSON config names the line of targetFiles[0]; an issue on a field the ' +
      'file does not set keeps no line; an error with no field in the file is ' +
      'returned as is',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'loop-lines-'));
      try {
        const file = join(dir, 'c.json');
        writeFileSync(
          file,
          JSON.stringify(
            {
              targetFiles: ['a.json'],
              runCommand: 'node e.mjs',
              metricName: 'score',
              proposer: { type: 'mutator', file: 'a.json', space: { x: { min: 0, max: 1 } } },
            },
            null,
            2,
          ),
        );
        const loaded = await loadConfig(file);
        const mapped = await withConfigLines(
          new ConfigError('auto-iterate', [
            { path: 'targetFiles.0', message: 'a.json does not exist in /w' },
            { path: 'resultsFile', message: 'bad' },
          ]),
          loaded,
        );
        expect(mapped).toBeInstanceOf(ConfigFileError);
        expect((mapped as ConfigFileError).issues).toEqual([
          { path: 'targetFiles.0', message: 'a.json does not exist in /w', line: 3 },
          { path: 'resultsFile', message: 'bad' },
        ]);
        expect((mapped as Error).message).toContain(`${file}:3: targetFiles.0: a.json does not exist in /w`);
        const elsewhere = new ConfigError('agent-command-proposer', [{ path: 'sandbox', message: 'no bwrap' }]);
        expect(await withConfigLines(elsewhere, loaded)).toBe(elsewhere);
        const other = new Error('not a config error');
        expect(await withConfigLines(other, loaded)).toBe(other);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

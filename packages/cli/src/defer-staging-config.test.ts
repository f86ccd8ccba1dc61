import { describe, expect, it } from 'vitest';
import { ConfigFileError, parseConfigText } from './load-config.js';

const base = `targetFiles: [train.mjs]
runCommand: node train.mjs
metricName: val_bpc
proposer:
  type: mutator
  file: train.mjs
  space: { lr: { min: 0.001, max: 0.1 } }
`;

describe('deferStagingAt in a config file (issue 31)', () => {
  it('reads a whole number of bytes or .inf; absent leaves the rollback its default', () => {
    expect(parseConfigText(base, '/w/loop.config.yaml').deferStagingAt).toBeUndefined();
    expect(parseConfigText(`${base}deferStagingAt: 0\n`, '/w/loop.config.yaml').deferStagingAt).toBe(0);
    expect(parseConfigText(`${base}deferStagingAt: .inf\n`, '/w/loop.config.yaml').deferStagingAt).toBe(
      Number.MAX_SAFE_INTEGER,
    ); // never: no index is that large
  });

  it('a fraction, a string or a negative number is CONFIG_INVALID at its file:line', () => {
    const cases: Array<[string, string]> = [
      ['1.5', 'must be a whole number, found 1.5'],
      ['1MB', 'expected number, found "1MB"'],
      ['-1', 'must be a whole number of bytes (0 or more) or .inf'],
    ];
    for (const [value, says] of cases) {
      try {
        parseConfigText(`${base}deferStagingAt: ${value}\n`, '/w/loop.config.yaml');
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigFileError);
        expect(String((error as Error).message)).toContain(`/w/loop.config.yaml:8: deferStagingAt: ${says}`);
      }
    }
  });
});

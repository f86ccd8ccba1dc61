import { describe, expect, it } from 'vitest';
import { parseRunFlags } from '../test/fixtures/run-flags.js';
import { applyRunFlags } from './apply-run-flags.js';
import { ConfigFileError, LOOP_CONFIG_KIND, parseConfigText } from './load-config.js';
import { pruneOptionsOf } from './prune-config.js';

const minimal = `targetFiles: [config.json]
runCommand: node train.mjs
metricName: val_bpc
proposer:
  type: mutator
  file: config.json
  space: { x: { min: 0, max: 9, integer: true } }
`;
const withPrune = `${minimal}intermediate:
  pattern: '^step (\\d+) .*val_bpc ([\\w.+-]+)'
prune:
  steps: 3000
  pruners:
    - type: non-finite
    - type: incumbent
      margin: 0.1
      warmupSteps: 500
`;

function errorOf(text: string): ConfigFileError {
  try {
    parseConfigText(text, '/w/loop.config.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigFileError);
    return error as ConfigFileError;
  }
  throw new Error('expected a ConfigFileError');
}

const flags = parseRunFlags;

describe('the intermediate and prune blocks of a config (issue 27)', () => {
  it("map onto the command harness's pattern and core's pruners, in order", () => {
    const options = pruneOptionsOf(parseConfigText(withPrune, 'c.yaml'));
    expect(options.intermediate).toEqual({ pattern: '^step (\\d+) .*val_bpc ([\\w.+-]+)', pollMs: 200 });
    expect(options.prune?.pruners.map((p) => p.name)).toEqual(['non-finite', 'incumbent-curve']);
    expect(options.prune?.steps).toBe(3000);
  });

  it(
    'a pattern with one group, an unknown pruner type, a pollMs of 0 or 1.5 and prune without ' +
      'intermediate are errors naming file:line and field',
    () => {
      const oneGroup = withPrune.replace("'^step (\\d+) .*val_bpc ([\\w.+-]+)'", "'^val_bpc ([\\d.]+)'");
      const line = oneGroup.split('\n').findIndex((l) => l.includes('pattern:')) + 1;
      expect(errorOf(oneGroup).message).toContain(
        `/w/loop.config.yaml:${line}: intermediate.pattern: needs two groups`,
      );
      const unknown = withPrune.replace('type: incumbent', 'type: hyperbandd');
      expect(errorOf(unknown).message).toMatch(/loop\.config\.yaml:\d+: prune\.pruners\.1\.type/);
      const zeroPoll = withPrune.replace('  pattern:', '  pollMs: 0\n  pattern:');
      expect(errorOf(zeroPoll).message).toContain('loop.config.yaml:9: intermediate.pollMs: must be at least 1 ms');
      const fractionPoll = withPrune.replace('  pattern:', '  pollMs: 1.5\n  pattern:');
      expect(errorOf(fractionPoll).message).toContain(
        'loop.config.yaml:9: intermediate.pollMs: must be a whole number, found 1.5',
      );
      const alone = `${minimal}prune:\n  steps: 10\n`;
      // At the line of `prune:` (8), not of its first field (9).
      expect(errorOf(alone).message).toContain('/w/loop.config.yaml:8: prune: prune needs intermediate');
    },
  );

  it(
    "successive-halving and hyperband entries map onto core's multi-fidelity " +
      'pruners; hyperband needs maxStep above minStep',
    () => {
      const text = withPrune.replace(
        '    - type: non-finite\n',
        '    - type: successive-halving\n      minStep: 300\n    - type: ' +
          'hyperband\n      minStep: 300\n      maxStep: 3000\n',
      );
      expect(pruneOptionsOf(parseConfigText(text, 'c.yaml')).prune?.pruners.map((p) => p.name)).toEqual([
        'successive-halving',
        'hyperband',
        'incumbent-curve',
      ]);
      const bad = text.replace('maxStep: 3000', 'maxStep: 100');
      expect(errorOf(bad).message).toMatch(
        /loop\.config\.yaml:\d+: prune\.pruners\.1\.maxStep: maxStep must be above minStep/,
      );
    },
  );

  it('--no-prune turns pruning off and keeps the reports; without it the config decides', () => {
    const config = parseConfigText(withPrune, 'c.yaml');
    const off = applyRunFlags(LOOP_CONFIG_KIND, config, flags('--no-prune'), 'c.yaml');
    expect(pruneOptionsOf(off)).toEqual({
      intermediate: { pattern: '^step (\\d+) .*val_bpc ([\\w.+-]+)', pollMs: 200 },
    });
    expect(pruneOptionsOf(applyRunFlags(LOOP_CONFIG_KIND, config, flags(), 'c.yaml')).prune?.pruners).toHaveLength(2);
    // A config without pruning is untouched by the absent flag.
    expect(
      applyRunFlags(LOOP_CONFIG_KIND, parseConfigText(minimal, 'c.yaml'), flags(), 'c.yaml').prune,
    ).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { parseConfigText } from './load-config.js';
import { PRIVATE_TMP_NOTE, sandboxBannerLines } from './sandbox-banner.js';
import { resolveRunConfig } from './resolve-run-config.js';

const base = `targetFiles: [train.mjs]
runCommand: node train.mjs
metricName: val_bpc
`;
const agent = (extra = '') => `${base}proposer:\n  type: agent\n  command: claude -p\n  goal: lower val_bpc\n${extra}`;
const lines = (text: string, available = true) => {
  const config = parseConfigText(text, '/w/loop.config.yaml');
  return sandboxBannerLines(
    config,
    resolveRunConfig(config),
    available ? { available: true, path: '/usr/bin/bwrap' } : { available: false, reason: 'bwrap is not installed' },
  );
};

describe('the sandbox line of the run banner', () => {
  it(
    'sandbox: auto where bwrap works announces the agent in bwrap, what it ' +
      'may write, and that the host /tmp is hidden from it',
    () => {
      expect(lines(agent('  writable: ["~/.claude"]\n'))).toEqual([
        `sandbox   agent in bwrap: writes only train.mjs, ~/.claude; ${PRIVATE_TMP_NOTE}; network on`,
      ]);
      expect(PRIVATE_TMP_NOTE).toContain('the host /tmp is hidden');
    },
  );

  it('a confined harness gets its own line (run and checks command, network off by default)', () => {
    expect(lines(`${agent('  sandbox: none\n')}harness: { sandbox: auto }\nchecks: { command: "npm test" }\n`)).toEqual(
      [`sandbox   run and checks command in bwrap: writes only the workspace; ${PRIVATE_TMP_NOTE}; network off`],
    );
  });

  it(
    'no line for an unconfined run: sandbox none, a mutator proposer, or ' +
      'auto where bwrap does not work (core warns instead)',
    () => {
      expect(lines(agent('  sandbox: none\n'))).toEqual([]);
      expect(lines(`${base}proposer: { type: mutator, file: train.mjs, space: { x: { min: 0, max: 1 } } }\n`)).toEqual(
        [],
      );
      expect(lines(agent(), false)).toEqual([]);
    },
  );
});

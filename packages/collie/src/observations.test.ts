import { isLoopError } from '@loop/core';
import { describe, expect, it } from 'vitest';
import { ladderStartTier, parseObservations, renderObservations, upgradeTier } from './observations.js';

describe('seed 000 Stage 3 observations and ladder tiers', () => {
  it(
    'Step 3.1: observations.md sections (## ISSUE-nnn with - title / ' +
      'evidence / severity / first_seen_ts / blocking) parse and render ' +
      'round-trip',
    () => {
      const text = [
        '## ISSUE-001',
        '- title: suite fails to start',
        '- evidence: |',
        '    Error: missing config',
        '    at load (cfg.js:3)',
        '- severity: 4',
        '- first_seen_ts: 12',
        '- blocking: true',
        '',
        '## ISSUE-002',
        'title: slow test',
        'severity: 2',
        'blocking: false',
      ].join('\n');
      const issues = parseObservations(text);
      expect(issues).toEqual([
        {
          id: 'ISSUE-001',
          title: 'suite fails to start',
          evidence: 'Error: missing config\nat load (cfg.js:3)',
          severity: 4,
          first_seen_ts: '12',
          blocking: true,
        },
        { id: 'ISSUE-002', title: 'slow test', evidence: '', severity: 2, first_seen_ts: '', blocking: false },
      ]);
      expect(parseObservations(renderObservations(issues))).toEqual(issues);
    },
  );

  it(
    'Step 3.1: evidence is capped at 5 lines; no section means no issues; a ' +
      'missing blocking field is PROPOSER_FAILED',
    () => {
      const long = [
        '## ISSUE-001',
        'title: t',
        'severity: 1',
        'blocking: false',
        'evidence: |',
        ...[1, 2, 3, 4, 5, 6, 7].map((i) => `  line ${i}`),
      ].join('\n');
      expect(parseObservations(long)[0]?.evidence.split('\n')).toHaveLength(5);
      expect(parseObservations('NO ISSUES')).toEqual([]);
      expect(() => parseObservations('## ISSUE-001\ntitle: t\nseverity: 2\n')).toThrow(/blocking/);
      try {
        parseObservations('## ISSUE-001\ntitle: t\nseverity: 9\nblocking: true\n');
      } catch (e) {
        expect(isLoopError(e, 'PROPOSER_FAILED')).toBe(true);
      }
    },
  );

  it(
    'Step 3.2: the ladder starts at fast / standard / deep for simple / ' +
      'medium / complex blocking issues (severity 1-2 / 3 / 4-5) and goes up ' +
      'one tier per failure, capped at deep',
    () => {
      expect(
        ladderStartTier([
          { severity: 2, blocking: true },
          { severity: 5, blocking: false },
        ]),
      ).toBe('fast');
      expect(ladderStartTier([{ severity: 3, blocking: true }])).toBe('standard');
      expect(ladderStartTier([{ severity: 4, blocking: true }])).toBe('deep');
      expect(ladderStartTier([])).toBe('fast');
      expect([upgradeTier('fast'), upgradeTier('standard'), upgradeTier('deep')]).toEqual(['standard', 'deep', 'deep']);
    },
  );
});

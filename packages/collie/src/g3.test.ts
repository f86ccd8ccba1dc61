import { describe, expect, it } from 'vitest';
import { checkG3, deepVerifyPrompt, G3_DEEP_VERIFY, G3_TRIAGE, triagePrompt } from './index.js';

const observations = [
  '## ISSUE-001',
  '- title: TypeError in parseDate when input is empty',
  '- evidence: TypeError: Cannot read properties of undefined (reading split)',
  '- evidence: at parseDate (src/date.js:12:17)',
  '- severity: 4',
].join('\n');

describe('seed 000 G3 prompt requirements', () => {
  it('G3 Stage 4a: the triage prompt contains "reverse suspicion" and the NOT-real instruction', () => {
    expect(checkG3(triagePrompt(), observations, G3_TRIAGE)).toEqual({
      ok: true,
      missingPhrases: [],
      verbatimLines: [],
    });
  });

  it('G3 Stage 4b: the deep-verify prompt contains "adversarial" and the falsification instruction', () => {
    expect(checkG3(deepVerifyPrompt('ISSUE-001', 'FIX-001'), observations, G3_DEEP_VERIFY).ok).toBe(true);
    expect(checkG3(triagePrompt(), observations, G3_DEEP_VERIFY).missingPhrases).toEqual([
      'Attempt proof of falsification before writing fix outline',
    ]);
  });

  it('G3: at most 2 lines of observations.md verbatim in a prompt (anchor prevention); a third fails', () => {
    const lines = observations.split('\n').slice(1, 4);
    expect(checkG3(triagePrompt(lines), observations, G3_TRIAGE).ok).toBe(true); // the builder keeps only 2
    const stuffed = `${triagePrompt()}\n${lines.join('\n')}`;
    expect(checkG3(stuffed, observations, G3_TRIAGE)).toMatchObject({ ok: false, verbatimLines: lines });
  });
});

import { describe, expect, it } from 'vitest';
import {
  checkAdversarialPrompt,
  deepVerifyPrompt,
  DEEP_VERIFY_PROMPT_RULE,
  TRIAGE_PROMPT_RULE,
  triagePrompt,
} from './adversarial-prompt.js';

const observations = [
  '## ISSUE-001',
  '- title: TypeError in parseDate when input is empty',
  '- evidence: TypeError: Cannot read properties of undefined (reading split)',
  '- evidence: at parseDate (src/date.js:12:17)',
  '- severity: 4',
].join('\n');

describe('seed 000 G3 prompt requirements', () => {
  it('G3 Stage 4a: the triage prompt contains "reverse suspicion" and the NOT-real instruction', () => {
    expect(checkAdversarialPrompt(triagePrompt(), observations, TRIAGE_PROMPT_RULE)).toEqual({
      ok: true,
      missingPhrases: [],
      verbatimLines: [],
    });
  });

  it('G3 Stage 4b: the deep-verify prompt contains "adversarial" and the falsification instruction', () => {
    expect(
      checkAdversarialPrompt(deepVerifyPrompt('ISSUE-001', 'FIX-001'), observations, DEEP_VERIFY_PROMPT_RULE).ok,
    ).toBe(true);
    expect(checkAdversarialPrompt(triagePrompt(), observations, DEEP_VERIFY_PROMPT_RULE).missingPhrases).toEqual([
      'Attempt proof of falsification before writing fix outline',
    ]);
  });

  it('G3: at most 2 lines of observations.md verbatim in a prompt (anchor prevention); a third fails', () => {
    const lines = observations.split('\n').slice(1, 4);
    // the builder keeps only 2
    expect(checkAdversarialPrompt(triagePrompt(lines), observations, TRIAGE_PROMPT_RULE).ok).toBe(true);
    const stuffed = `${triagePrompt()}\n${lines.join('\n')}`;
    expect(checkAdversarialPrompt(stuffed, observations, TRIAGE_PROMPT_RULE)).toMatchObject({
      ok: false,
      verbatimLines: lines,
    });
  });
});

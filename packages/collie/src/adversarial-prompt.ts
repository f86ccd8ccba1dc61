/**
 * What the system prompt of one adversarial dispatch must meet (seed 000 guard G3, Stage 4a / 4b):
 * required phrases, and a cap on lines copied verbatim from observations.md (anchor prevention).
 */
export interface AdversarialPromptRule {
  /** Phrases the system prompt must contain. */
  readonly phrases: readonly string[];
  /** At most this many lines may be copied verbatim from observations.md (anchor prevention). */
  readonly maxVerbatimLines: number;
}

/** Stage 4a Triage (seed 000 guard G3): "reverse suspicion" and the NOT-real instruction. */
export const TRIAGE_PROMPT_RULE: AdversarialPromptRule = {
  phrases: ['reverse suspicion', 'Start by finding reasons why each issue is NOT real before concluding it is'],
  maxVerbatimLines: 2,
};

/** Stage 4b Deep Verify (seed 000 guard G3): "adversarial" and the falsification instruction. */
export const DEEP_VERIFY_PROMPT_RULE: AdversarialPromptRule = {
  phrases: ['adversarial', 'Attempt proof of falsification before writing fix outline'],
  maxVerbatimLines: 2,
};

/** The result of {@link checkAdversarialPrompt}. */
export interface AdversarialPromptCheck {
  readonly ok: boolean;
  /** Required phrases the prompt lacks. */
  readonly missingPhrases: readonly string[];
  /** Non-blank lines of observations.md that appear verbatim in the prompt. */
  readonly verbatimLines: readonly string[];
}

/**
 * Checks a prompt against seed 000 guard G3: it contains every required phrase and copies at most
 * `maxVerbatimLines` non-blank lines of observations.md verbatim (a line counts when its trimmed text, at least 12
 * characters,
 * occurs in the prompt; shorter lines such as `- severity: 3` are too generic to count).
 */
export function checkAdversarialPrompt(
  prompt: string,
  observations: string,
  requirement: AdversarialPromptRule,
): AdversarialPromptCheck {
  const missingPhrases = requirement.phrases.filter((p) => !prompt.includes(p));
  const verbatimLines = [
    ...new Set(
      observations
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.length >= 12 && prompt.includes(l)),
    ),
  ];
  return {
    ok: missingPhrases.length === 0 && verbatimLines.length <= requirement.maxVerbatimLines,
    missingPhrases,
    verbatimLines,
  };
}

/**
 * The Stage 4a triage system prompt. It meets G3 by construction: observations.md travels as an
 * input document, never inside the prompt; `anchor` (at most 2 lines) may quote it.
 */
export function triagePrompt(anchor: readonly string[] = []): string {
  return [
    'You are the Triage subagent of an autoiter run. Work by reverse suspicion.',
    'Start by finding reasons why each issue is NOT real before concluding it is.',
    ...(anchor.length > 0 ? ['Anchor lines from the observations:', ...anchor.slice(0, 2).map((l) => `> ${l}`)] : []),
    'For every ISSUE in observations.md write a section:',
    '## ISSUE-{nnn}',
    'verdict: Real | Discarded | Unclear',
    'confidence: 1-5',
    'rationale: <adversarial reasoning>',
  ].join('\n');
}

/** The Stage 4b deep-verify system prompt for one issue (meets G3 by construction, like {@link triagePrompt}). */
export function deepVerifyPrompt(issueId: string, fixId: string, anchor: readonly string[] = []): string {
  return [
    `You are an adversarial Deep Verify subagent for ${issueId}.`,
    'Attempt proof of falsification before writing fix outline.',
    ...(anchor.length > 0 ? ['Anchor lines from the observations:', ...anchor.slice(0, 2).map((l) => `> ${l}`)] : []),
    'Reply with YAML only:',
    `id: ${fixId}`,
    'kind: correctness | optimization | mixed',
    'severity: 1-5',
    'fix_confidence: 1-5',
    'root_cause: "<non-empty>"',
    'reproduction_test: |',
    '  <runnable test reproducing the issue BEFORE the fix>',
    'fix_outline: "<what to change, where>"',
    'why_root_cause: "<adversarial justification>"',
    'dependencies: [FIX-xxx, ...]',
    'uncertainty_tag: triage_unclear | none',
    'key_files: [<files the fix changes>]',
  ].join('\n');
}

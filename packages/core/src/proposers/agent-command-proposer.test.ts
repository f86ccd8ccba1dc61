import { describe, expect, it } from 'vitest';
import { createAgentCommandProposer } from './agent-command-proposer.js';
import { buildAgentPrompt, formatHistoryTable } from './agent-prompt.js';
import type { IterationRecord } from '../contracts/iteration-record.js';
import type { ProposalContext } from '../contracts/proposer.js';

const history: IterationRecord[] = [
  { iteration: 0, candidateId: 'abc1234def', score: 3.2, status: 'baseline', description: 'baseline' },
  { iteration: 1, candidateId: 'bcd2345efa', score: null, status: 'rejected', description: 'edited\tprepare.mjs' },
  { iteration: 2, candidateId: '', score: null, status: 'crash', description: 'oom' },
];

function context(over: Partial<ProposalContext> = {}): ProposalContext {
  return {
    iteration: 3,
    attempt: 0,
    history,
    baseline: 3.2,
    best: 3.2,
    direction: 'minimize',
    hints: [],
    signal: new AbortController().signal,
    ...over,
  };
}

describe('agent prompt history (format-neutral in core)', () => {
  it('by default the history is the neutral table in the engine’s words, not a preset’s file format', () => {
    expect(formatHistoryTable(history)).toBe(
      [
        '## Results so far',
        'iteration\tscore\tstatus\tdescription',
        '0\t3.2\tbaseline\tbaseline',
        '1\t-\trejected\tedited prepare.mjs',
        '2\t-\tcrash\toom',
      ].join('\n'),
    );
    const prompt = buildAgentPrompt('Lower the score.', context());
    expect(prompt).toContain(`${formatHistoryTable(history)}\n\n## Your task`);
    expect(prompt).not.toContain('commit\tscore\tstatus\tdescription');
  });

  it('formatHistory replaces the history block and nothing else', () => {
    const prompt = buildAgentPrompt('Lower the score.', context(), (rows) => `## My log\n${rows.length} rows`);
    expect(prompt).toContain(
      'Lower the score.\n\nScores: lower is better. Baseline 3.2, best so far ' +
        '3.2.\n\n## My log\n3 rows\n\n## Your task',
    );
  });

  it('an empty history leaves one blank line after the block', () => {
    expect(buildAgentPrompt('g', context({ history: [] }))).toContain(
      '## Results so far\niteration\tscore\tstatus\tdescription\n\n## Your task',
    );
  });

  it('formatHistory must be a function (CONFIG_INVALID otherwise)', () => {
    expect(() =>
      createAgentCommandProposer({ command: 'true', cwd: '/tmp', goal: 'g', formatHistory: 'tsv' as never }),
    ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});

import { isLoopError } from '@loop/core';
import { describe, expect, it } from 'vitest';
import { createScriptedAgent, renderAgentPrompt } from './index.js';
import { TIER_MODELS } from './agent.js';

describe('Agent contract', () => {
  it('capability tiers map to the seed models: fast = haiku, standard = sonnet, deep = opus', () => {
    expect(TIER_MODELS).toEqual({ fast: 'haiku', standard: 'sonnet', deep: 'opus' });
  });

  it(
    'the scripted agent replies per role in order, records every request, ' +
      'and fails with PROPOSER_FAILED when a role runs out',
    async () => {
      const agent = createScriptedAgent({ triage: ['t1', (r) => `echo ${r.tier}`] });
      expect(await agent.run({ role: 'triage', tier: 'deep', prompt: 'p', inputs: {} })).toBe('t1');
      expect(await agent.run({ role: 'triage', tier: 'deep', prompt: 'p', inputs: {} })).toBe('echo deep');
      await expect(
        Promise.resolve().then(() => agent.run({ role: 'triage', tier: 'deep', prompt: 'p', inputs: {} })),
      ).rejects.toSatisfy((e) => isLoopError(e, 'PROPOSER_FAILED'));
      expect(agent.calls).toHaveLength(3);
    },
  );

  it('the prompt on stdin is the prompt then each input under a ## heading', () => {
    expect(renderAgentPrompt({ prompt: 'Do X.', inputs: { 'observations.md': 'a\nb\n' } })).toBe(
      'Do X.\n\n## observations.md\n\na\nb\n',
    );
  });
});

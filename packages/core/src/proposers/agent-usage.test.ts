import { describe, expect, it } from 'vitest';
import { agentAnswerText, parseAgentUsage, parseUsageFile } from './agent-usage.js';

const CLAUDE = JSON.stringify({
  type: 'result',
  subtype: 'success',
  is_error: false,
  duration_ms: 5120,
  num_turns: 4,
  session_id: 's-1',
  result: 'Halved the learning rate.\nDESCRIPTION: lr 0.1 -> 0.05',
  total_cost_usd: 0.0421,
  usage: { input_tokens: 12, cache_creation_input_tokens: 3000, cache_read_input_tokens: 20000, output_tokens: 450 },
});
const CODEX = [
  '{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}',
  '{"type":"turn.started"}',
  '{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Thinking**"}}',
  '{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"DESCRIPTION: unrolled the loop"}}',
  '{"type":"turn.completed","usage":{"input_tokens":2946,"cached_input_tokens":1024,"output_tokens":70}}',
  '{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":30}}',
].join('\n');

describe('agent usage', () => {
  it("reads Claude Code's --output-format json result: total_cost_usd and the four token counts summed", () => {
    expect(parseAgentUsage(CLAUDE)).toEqual({
      source: 'claude-json',
      usd: 0.0421,
      tokens: 23462,
      inputTokens: 23012,
      outputTokens: 450,
      cachedInputTokens: 20000,
    });
    expect(agentAnswerText(CLAUDE)).toContain('DESCRIPTION: lr 0.1 -> 0.05');
  });
  it("reads Codex's exec --json events: every turn.completed usage summed, no dollars", () => {
    expect(parseAgentUsage(CODEX)).toEqual({
      source: 'codex-jsonl',
      tokens: 4046,
      inputTokens: 3946,
      outputTokens: 100,
      cachedInputTokens: 1024,
    });
    expect(agentAnswerText(CODEX)).toBe('DESCRIPTION: unrolled the loop');
  });
  it('reads the last generic `usage: tokens=N usd=X` line, either key alone', () => {
    expect(parseAgentUsage('working\nusage: tokens=10 usd=1\nusage: tokens=1200 usd=0.03\nDESCRIPTION: x')).toEqual({
      source: 'usage-line',
      tokens: 1200,
      usd: 0.03,
    });
    expect(parseAgentUsage('usage: usd=0.5')).toEqual({ source: 'usage-line', usd: 0.5 });
    expect(parseAgentUsage('no usage here\nDESCRIPTION: y')).toBeUndefined();
    expect(agentAnswerText('plain text')).toBe('plain text');
  });
  it('reads a usage file: {usd, tokens}, {input_tokens, output_tokens} summed, or a saved Claude result', () => {
    expect(parseUsageFile('{"usd":0.2,"tokens":900}')).toEqual({ source: 'usage-file', usd: 0.2, tokens: 900 });
    expect(parseUsageFile('{"input_tokens":100,"output_tokens":5}')).toEqual({
      source: 'usage-file',
      tokens: 105,
      inputTokens: 100,
      outputTokens: 5,
    });
    expect(parseUsageFile(CLAUDE)).toMatchObject({ source: 'usage-file', usd: 0.0421, tokens: 23462 });
    expect(parseUsageFile('{}')).toBeUndefined();
  });
  it('a token count that is not a whole number is not read (12.7 tokens); the dollars still are', () => {
    expect(parseUsageFile('{"usd":0.5,"tokens":12.7}')).toEqual({ source: 'usage-file', usd: 0.5 });
    expect(parseAgentUsage('usage: tokens=3.5 usd=0.1')).toEqual({ source: 'usage-line', usd: 0.1 });
    expect(parseAgentUsage('usage: tokens=1e3')).toEqual({ source: 'usage-line', tokens: 1000 });
  });
});

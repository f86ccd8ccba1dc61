import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentCommand, parseUsage } from './agent-command.js';
import { createScriptedAgent } from './agent.js';
import { FIXTURE_RUN, fixtureAutoiter, fixtureDirs } from './internal/autoiter-fixture.js';
import { readRunState } from './run-state.js';
import { estimateTokens, meterAgent, readTokensUsed } from './token-meter.js';

let dirs: ReturnType<typeof fixtureDirs>;
beforeEach(() => (dirs = fixtureDirs()));
afterEach(() => dirs.cleanup());

const CLAUDE_JSON = '"input_tokens":\\s*(?<input>\\d+)[\\s\\S]*?"output_tokens":\\s*(?<output>\\d+)';

describe('token accounting (SC4 tokens_used)', () => {
  it(
    'a dispatch that reports usage is counted as input + output; one that ' + 'does not is estimated as characters / 4',
    async () => {
      const ledger = join(dirs.root, 'tokens.jsonl');
      const agent = meterAgent(
        createScriptedAgent({ a: [{ text: 'ok', usage: { input: 120, output: 30 } }], b: ['x'.repeat(40)] }),
        () => ({ ledger, iter: 2 }),
        () => '2026-01-02T03:04:05.000Z',
      );
      await agent.run({ role: 'a', tier: 'deep', prompt: 'p', inputs: {} });
      await agent.run({ role: 'b', tier: 'fast', prompt: 'y'.repeat(20), inputs: {} });
      const entries = readFileSync(ledger, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(entries).toEqual([
        { ts: '2026-01-02T03:04:05.000Z', iter: 2, role: 'a', tier: 'deep', tokens: 150, source: 'reported' },
        {
          ts: '2026-01-02T03:04:05.000Z',
          iter: 2,
          role: 'b',
          tier: 'fast',
          tokens: estimateTokens('y'.repeat(20).length + 1 + 40),
          source: 'estimate',
        },
      ]);
      expect(await readTokensUsed(ledger)).toBe(150 + (entries[1]!.tokens as number));
    },
  );

  it('a torn last line of tokens.jsonl (a killed process) is skipped, the rest still counts', async () => {
    const ledger = join(dirs.root, 'tokens.jsonl');
    appendFileSync(
      ledger,
      `${JSON.stringify({ ts: 't', iter: 1, role: 'r', tier: 'fast', tokens: 7, source: 'estimate' })}` +
        `\n{"ts":"t","iter":1,"ro`,
    );
    expect(await readTokensUsed(ledger)).toBe(7);
    expect(await readTokensUsed(join(dirs.root, 'missing.jsonl'))).toBe(0);
  });

  it(
    'agent-command: usagePattern finds the usage in the agent output ' + '(claude --output-format json) and reports it',
    async () => {
      const ledger = join(dirs.root, 'tokens.jsonl');
      const command = createAgentCommand({
        command:
          `cat >/dev/null; echo ` +
          `'{"result":"done","usage":{"input_tokens":1200,"cache_read_input_tokens":5,"output_tokens":345}}'`,
        cwd: dirs.project,
        logDir: join(dirs.root, 'logs'),
        usagePattern: CLAUDE_JSON,
      });
      await meterAgent(
        command,
        () => ({ ledger, iter: 1 }),
        () => 't',
      ).run({ role: 'triage', tier: 'deep', prompt: 'p', inputs: {} });
      expect(await readTokensUsed(ledger)).toBe(1545);
      expect(parseUsage('tokens used: (?<total>\\d+)', 'tokens used: 99')).toEqual({ input: 99, output: 0 });
    },
  );

  it(
    'agent-command: replyField takes the reply text out of a JSON envelope ' +
      '(claude -p --output-format json) while usagePattern reads the usage from ' +
      'it',
    async () => {
      const ledger = join(dirs.root, 'tokens.jsonl');
      const envelope = JSON.stringify({
        type: 'result',
        result: '## ISSUE-001\nverdict: Real',
        usage: { input_tokens: 10, output_tokens: 5 },
      });
      const command = createAgentCommand({
        command: `cat >/dev/null; printf '%s\\n' '${envelope}'`,
        cwd: dirs.project,
        logDir: join(dirs.root, 'logs'),
        usagePattern: CLAUDE_JSON,
        replyField: 'result',
      });
      expect(
        await meterAgent(
          command,
          () => ({ ledger, iter: 1 }),
          () => 't',
        ).run({ role: 'triage', tier: 'deep', prompt: 'p', inputs: {} }),
      ).toBe('## ISSUE-001\nverdict: Real');
      expect(await readTokensUsed(ledger)).toBe(15);
      const bad = createAgentCommand({
        command: 'cat >/dev/null; echo not json',
        cwd: dirs.project,
        logDir: join(dirs.root, 'logs'),
        replyField: 'result',
      });
      await expect(bad.run({ role: 'triage', tier: 'deep', prompt: 'p', inputs: {} })).rejects.toMatchObject({
        code: 'PROPOSER_FAILED',
        message: expect.stringContaining('"result"'),
      });
    },
  );

  it('agent-command: a usagePattern without the named groups is rejected, naming the field', () => {
    expect(() =>
      createAgentCommand({ command: 'cat', cwd: dirs.project, logDir: dirs.root, usagePattern: '(\\d+)' }),
    ).toThrow(/usagePattern/);
  });

  it(
    'SC4: when the agents of a run have used max_tokens, Stage 6 stops with ' +
      'budget_exhausted and state.json records tokens_used',
    async () => {
      const agent = createScriptedAgent(
        { discovery: ['x'], observe: [{ text: 'NO ISSUES', usage: { input: 900, output: 200 } }] },
        { repeatLast: true },
      );
      const { a, notes } = fixtureAutoiter(dirs, { agent, maxTokens: 1000, maxIterations: 5 });
      const outcomes = await a.run();
      expect(outcomes.at(-1)).toMatchObject({ kind: 'done', status: 'budget_exhausted' });
      const state = await readRunState(a.paths.run(FIXTURE_RUN).state);
      expect(state).toMatchObject({
        iter: 1,
        status: 'budget_exhausted',
        stop_reason: expect.stringMatching(/^SC4: token budget used \(\d+ >= 1000\)$/),
      });
      expect(state!.tokens_used).toBeGreaterThanOrEqual(1100);
      expect(notes.map((n) => n.event)).toEqual(['budget_exhausted']);
      const roles = readFileSync(a.paths.run(FIXTURE_RUN).tokens, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { role: string }).role);
      expect(roles).toEqual(['discovery', 'observe']);
    },
  );
});

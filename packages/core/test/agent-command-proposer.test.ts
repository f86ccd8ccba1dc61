import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileArtifact, type ProposalContext } from '../src/index.js';
import { buildAgentPrompt, createAgentCommandProposer, descriptionFromOutput } from '../src/proposers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-agent-'));
  await writeFile(join(dir, 'config.json'), '{"lr": 0.001}\n');
  await writeFile(join(dir, 'prepare.mjs'), '// evaluation\n');
  // Sandboxed by default (bwrap where installed): the fake agent's prompt log is the one extra writable path.
  await writeFile(join(dir, 'prompts.log'), '');
  // A scripted fake agent: saves its prompt, edits config.json, prints a description.
  await writeFile(
    join(dir, 'fake-agent.mjs'),
    `import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
const prompt = readFileSync(0, 'utf8');
appendFileSync('prompts.log', '=== pid ' + process.pid + ' started ' + performance.timeOrigin + '\\n' + prompt + '\\n');
const mode = process.env.FAKE_AGENT_MODE ?? 'edit';
if (mode === 'fail') { console.error('agent: API error'); process.exit(2); }
if (mode === 'hang') { setInterval(() => {}, 1000); }
else {
  if (mode === 'edit') writeFileSync('config.json', JSON.stringify({ lr: 0.002 }) + '\\n');
  console.log('thinking...');
  console.log('DESCRIPTION: double the learning rate');
  console.log('done');
}
`,
  );
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function context(iteration: number, over: Partial<ProposalContext> = {}): ProposalContext {
  return {
    iteration,
    attempt: 0,
    history: [{ iteration: 0, candidateId: 'abc1234', score: 3.2, status: 'baseline', description: 'baseline' }],
    baseline: 3.2,
    best: 3.2,
    direction: 'minimize',
    hints: [],
    artifact: createFileArtifact({ root: dir, mutable: ['config.json'], readOnly: ['prepare.mjs'] }),
    signal: new AbortController().signal,
    ...over,
  };
}

describe('agent-command proposer (scripted fake agent)', () => {
  it('runs the agent with the prompt on stdin and takes its DESCRIPTION line', async () => {
    const proposer = createAgentCommandProposer({
      command: 'node fake-agent.mjs',
      cwd: dir,
      writable: [join(dir, 'prompts.log')],
      goal: 'Lower val_bpc.',
    });
    const proposal = await proposer.propose(context(1));
    expect(proposal).toEqual({ description: 'double the learning rate', changedFiles: ['config.json'] });
    expect(await readFile(join(dir, 'config.json'), 'utf8')).toBe('{"lr":0.002}\n');
  });

  it(
    'gives each iteration a fresh process with the target, the results so ' +
      'far and the iteration number (seed 001 isolation)',
    async () => {
      const proposer = createAgentCommandProposer({
        command: 'node fake-agent.mjs',
        cwd: dir,
        writable: [join(dir, 'prompts.log')],
        goal: 'Lower val_bpc.',
      });
      await proposer.propose(context(1));
      await proposer.propose(context(2));
      const log = await readFile(join(dir, 'prompts.log'), 'utf8');
      const calls = log.split('=== pid ').slice(1);
      expect(calls).toHaveLength(2);
      // two different processes (in a pid namespace both may be pid 2: the start time tells them apart)
      expect(new Set(calls.map((c) => c.split('\n')[0])).size).toBe(2);
      expect(calls[1]).toContain('# Iteration 2');
      expect(calls[1]).toContain('You may modify ONLY: config.json.');
      // core's neutral history table (auto-iterate passes its own)
      expect(calls[1]).toContain('0\t3.2\tbaseline\tbaseline');
    },
  );

  it(
    'with constraints the prompt lists one line per violated constraint of ' +
      'the history, after the results (issue 28)',
    async () => {
      const constraints = (r: { data?: { metrics?: Record<string, number> } }) =>
        r.data?.metrics ? [r.data.metrics.rss_mb! - 100, r.data.metrics.latency_ms! - 50] : undefined;
      const proposer = createAgentCommandProposer({
        command: 'node fake-agent.mjs',
        cwd: dir,
        writable: [join(dir, 'prompts.log')],
        goal: 'x',
        constraints,
        constraintNames: ['rss_mb <= 100', 'latency_ms <= 50'],
      });
      const history = [
        {
          iteration: 0,
          candidateId: 'a',
          score: 3.2,
          status: 'baseline' as const,
          description: 'baseline',
          data: { metrics: { rss_mb: 90, latency_ms: 40 } },
        },
        {
          iteration: 1,
          candidateId: 'b',
          score: 3.0,
          status: 'reverted' as const,
          description: 'cache everything',
          data: { metrics: { rss_mb: 180, latency_ms: 60 } },
        },
        {
          iteration: 2,
          candidateId: 'c',
          score: 3.1,
          status: 'kept' as const,
          description: 'inline the loop',
          data: { metrics: { rss_mb: 95, latency_ms: 45 } },
        },
      ];
      await proposer.propose(context(3, { history }));
      const prompt = await readFile(join(dir, 'prompts.log'), 'utf8');
      expect(prompt).toContain(
        '## Constraint violations (a candidate that violates a constraint is not ' +
          'kept)\niteration 1 (cache everything): rss_mb <= 100 violated by ' +
          '80\niteration 1 (cache everything): latency_ms <= 50 violated by 10\n',
      );
      expect(prompt.indexOf('## Results so far')).toBeLessThan(prompt.indexOf('## Constraint violations'));
      expect(prompt).not.toContain('iteration 2 (inline the loop)');
    },
  );

  it('a failing agent is PROPOSER_FAILED naming its log and quoting its last lines', async () => {
    const proposer = createAgentCommandProposer({
      command: 'node fake-agent.mjs',
      cwd: dir,
      writable: [join(dir, 'prompts.log')],
      goal: 'x',
      env: { FAKE_AGENT_MODE: 'fail' },
    });
    await expect(proposer.propose(context(1))).rejects.toMatchObject({
      code: 'PROPOSER_FAILED',
      message: expect.stringContaining(
        `exited with code 2; see ${join(dir, '.loop', 'agent.log')}, which ends: agent: API error.`,
      ),
    });
  });

  it(
    'an agent that exits 0 and changes no target: the description says so ' +
      'with its exit code and the last lines of its log, and onNoChange hears ' +
      'the log path and tail (issue 32)',
    async () => {
      const heard: string[] = [];
      const proposer = createAgentCommandProposer({
        command: 'node fake-agent.mjs',
        cwd: dir,
        writable: [join(dir, 'prompts.log')],
        goal: 'x',
        env: { FAKE_AGENT_MODE: 'noop' },
        onNoChange: (m) => heard.push(m),
      });
      const proposal = await proposer.propose(context(4));
      expect(proposal).toEqual({
        description:
          'double the learning rate [agent exited 0 and changed no target; ' +
          '.loop/agent.log ends: thinking... | DESCRIPTION: double the learning ' +
          'rate | done]',
        changedFiles: [],
      });
      expect(heard).toHaveLength(1);
      expect(heard[0]).toContain(
        `iteration 4: the agent exited 0 and changed none of config.json; the ` +
          `last lines of ${join(dir, '.loop', 'agent.log')}:\n    thinking...\n`,
      );
      await writeFile(join(dir, 'config.json'), '{"lr": 0.5}\n');
      expect(
        (
          await createAgentCommandProposer({
            command: 'node fake-agent.mjs',
            cwd: dir,
            writable: [join(dir, 'prompts.log')],
            goal: 'x',
            onNoChange: (m) => heard.push(m),
          }).propose(context(5))
        ).description,
      ).toBe('double the learning rate');
      expect(heard).toHaveLength(1);
    },
  );

  it('an agent past its timeout is killed and is PROPOSER_FAILED', async () => {
    const proposer = createAgentCommandProposer({
      command: 'node fake-agent.mjs',
      cwd: dir,
      writable: [join(dir, 'prompts.log')],
      goal: 'x',
      timeoutMs: 300,
      env: { FAKE_AGENT_MODE: 'hang' },
    });
    await expect(proposer.propose(context(1))).rejects.toMatchObject({
      code: 'PROPOSER_FAILED',
      message: expect.stringContaining('timed out'),
    });
  });

  it('repair returns nothing when the agent changed no file (the crash stands)', async () => {
    const proposer = createAgentCommandProposer({
      command: 'node fake-agent.mjs',
      cwd: dir,
      writable: [join(dir, 'prompts.log')],
      goal: 'x',
      env: { FAKE_AGENT_MODE: 'noop' },
    });
    expect(
      await proposer.repair!(
        context(1, { attempt: 1, crash: { message: 'exited with code 1', logTail: 'SyntaxError' } }),
      ),
    ).toBeUndefined();
    expect(await readFile(join(dir, 'prompts.log'), 'utf8')).toContain('SyntaxError');
  });

  it('the prompt carries the loop’s hints', () => {
    expect(buildAgentPrompt('goal', context(3, { hints: ['try a structural change'] }))).toContain(
      '- try a structural change',
    );
  });

  it('without a DESCRIPTION line the last non-empty output line is the description', () => {
    expect(descriptionFromOutput('a\nchanged lr\n\n')).toBe('changed lr');
  });
});

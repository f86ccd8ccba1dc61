import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type IterationRecord } from '@loop/core';
import { createAgentCommandProposer } from '@loop/core/proposers';
import { readDiscardedDiffs } from '@loop/rollback-git';
import { createAutoIterate, formatAutoIterateHistory, type AutoIterateOptions } from '../src/index.js';
import { withOptions, type OptionsOver } from './with-options.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

// score = (x - 3)^2 + 1, lower is better.
const EVAL = `import { readFileSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
console.log('score: ' + ((x - 3) ** 2 + 1));
`;
// A scripted agent: sets x to XS[iteration - 1], saves its prompt, may append a note, and reports
// what it "cost" as FORMAT says: Claude Code's JSON result or Codex's JSONL events. Iteration n
// costs $0.01 * n and 1000 + n tokens.
const AGENT =
  `import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
const prompt = readFileSync(0, 'utf8');
const n = Number(process.env.LOOP_ITERATION);
appendFileSync('.prompts/log', '=== ' + n + '\\n' + prompt + '\\n');
const x = Number(process.env.XS.split(',')[n - 1]);
writeFileSync('config.json', JSON.stringify({ x }) + '\\n');
if (process.env.NOTES) appendFileSync(process.env.LOOP_NOTES_FILE, 'iteration ' + n + ': x=' + x + ' tried\\n');
const usd = Number((0.01 * n).toFixed(2));
const description = 'DESCRIPTION: x -> ' + x;
if (process.env.FORMAT === 'claude') {
  console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, num_turns: 3, session_id: 's' + ` +
  `n, result: 'Set x.\\n' + description,
    total_cost_usd: usd, usage: { input_tokens: 600, cache_creation_input_tokens: 200, cache_read_input_tokens: ` +
  `100, output_tokens: 100 + n } }));
} else if (process.env.FORMAT === 'codex') {
  console.log(JSON.stringify({ type: 'thread.started', thread_id: 't' + n }));
  console.log(JSON.stringify({ type: 'turn.started' }));
  console.log(JSON.stringify({ type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: ` +
  `description } }));
  console.log(JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 900, cached_input_tokens: 300, ` +
  `output_tokens: 100 + n } }));
} else {
  console.log('usage: tokens=' + (1000 + n) + ' usd=' + usd);
  console.log(description);
}
`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-agent-overnight-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 10 }) + '\n'); // baseline score 50
  writeFileSync(join(dir, 'eval.mjs'), EVAL);
  writeFileSync(join(dir, 'agent.mjs'), AGENT);
  writeFileSync(join(dir, '.gitignore'), '.prompts/\n');
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  execFileSync('mkdir', ['-p', join(dir, '.prompts')]);
  writeFileSync(join(dir, '.prompts/log'), '');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function run(xs: number[], env: Record<string, string>, over: OptionsOver = {}) {
  const proposer = createAgentCommandProposer({
    command: 'node agent.mjs',
    cwd: dir,
    goal: 'Lower the score.',
    formatHistory: formatAutoIterateHistory,
    env: { XS: xs.join(','), ...env },
    writable: [join(dir, '.prompts')],
    discardedDiffs: { read: (iterations) => readDiscardedDiffs(dir, iterations, 2000), count: 3 },
  });
  const options: AutoIterateOptions = withOptions(
    {
      dir,
      tag: 'night',
      files: { targetFiles: ['config.json'], readOnlyFiles: ['eval.mjs', 'agent.mjs'] },
      run: { command: 'node eval.mjs', timeBudgetS: 20, killTimeoutS: 30 },
      score: { metricName: 'score', direction: 'minimize' },
      stop: { maxIterations: xs.length },
      proposer,
    },
    over,
  );
  const created = createAutoIterate(options);
  const rows: IterationRecord[] = [];
  for (const type of ['baseline', 'kept', 'reverted', 'crash'] as const)
    created.loop.on(type, (e) => void rows.push(e.record));
  return { created, rows };
}
const prompts = () =>
  readFileSync(join(dir, '.prompts/log'), 'utf8')
    .split(/^=== \d+$/m)
    .slice(1);
const XS = [1, 2, 5, 3, 4, 6, 2, 7, 0, 3.5];

describe('an agent proposer over a night (scripted agents, real git)', () => {
  it(
    "a Claude Code agent's 10 iterations each record the USD and tokens its " + '--output-format json result printed',
    async () => {
      const { created, rows } = run(XS, { FORMAT: 'claude' });
      const summary = await created.run();
      expect(summary.iterations).toBe(10);
      const costs = rows
        .filter((r) => r.iteration > 0)
        .sort((a, b) => a.iteration - b.iteration)
        .map((r) => r.data?.cost);
      expect(costs).toEqual(XS.map((_, i) => ({ usd: Number((0.01 * (i + 1)).toFixed(2)), tokens: 1000 + i + 1 })));
    },
    120_000,
  );

  it(
    "a Codex agent's 10 iterations each record the tokens its exec --json " + 'turn.completed events printed (no USD)',
    async () => {
      const { created, rows } = run(XS, { FORMAT: 'codex' });
      await created.run();
      const costs = rows
        .filter((r) => r.iteration > 0)
        .sort((a, b) => a.iteration - b.iteration)
        .map((r) => r.data?.cost);
      expect(costs).toEqual(XS.map((_, i) => ({ tokens: 1000 + i + 1 })));
      expect(rows.find((r) => r.iteration === 1)?.description).toBe('x -> 1');
    },
    120_000,
  );

  it(
    'costBudget stops the run before the proposal that would go over it ' +
      '(mean cost per proposal), and says what was spent on what',
    async () => {
      // Spend after n proposals: 0.01 * n(n+1)/2 = 0.01, 0.03, 0.06, 0.10, 0.15; mean after 4 is 0.025.
      // 0.10 + 0.025 > 0.12: the fifth proposal is never started (a plain budget would run it to 0.15).
      const { created, rows } = run(XS, { FORMAT: 'claude' }, { stop: { costBudget: 0.12 } });
      const summary = await created.run();
      expect(summary.stop.reason).toBe('cost-budget');
      expect(summary.iterations).toBe(4);
      expect(rows.map((r) => r.iteration)).toEqual([0, 1, 2, 3, 4]);
      expect(summary.stop.message).toContain(
        'spent $0.1000 of a $0.1200 budget over 4 proposals; the next one (mean $0.0250) would go over it',
      );
      expect(summary.stop.message).toMatch(
        /on 4 proposals: \$0\.\d+ and [\d,]+ tokens on \d kept, \$0\.\d+ and [\d,]+ tokens on \d discarded/,
      );
      expect(prompts()).toHaveLength(4);
    },
    120_000,
  );

  it(
    'a resumed run counts what its earlier rows spent (their records come ' + 'back from .loop/records.jsonl)',
    async () => {
      const first = run(XS, { FORMAT: 'claude' }, { stop: { maxIterations: 3 } });
      await first.created.run(); // spent 0.06 on 3 proposals
      // Budget 0.09 after a resume: 0.06 + mean 0.02 = 0.08 fits, so iteration 4 runs (0.10 spent); then 0.10 >= 0.09.
      const again = run(
        XS,
        { FORMAT: 'claude' },
        { stop: { maxIterations: 0, costBudget: 0.09 }, recovery: { resume: true } },
      );
      const summary = await again.created.run();
      expect(summary.stop.reason).toBe('cost-budget');
      expect(summary.iterations).toBe(4);
      expect(summary.stop.message).toContain('spent $0.1000 of a $0.0900 budget; spent $0.1000');
      // Without the records the resumed run would not know the first 0.06 and would run on to 0.15.
      expect(again.rows.map((r) => r.iteration)).toEqual([4]);
    },
    120_000,
  );

  it('tokenBudget stops the same way on tokens', async () => {
    const { created } = run(XS, { FORMAT: 'codex' }, { stop: { tokenBudget: 3000 } });
    const summary = await created.run();
    expect(summary.stop.reason).toBe('cost-budget');
    expect(summary.iterations).toBe(2); // 2003 tokens, mean 1001.5: a third would reach 3004.5
  }, 120_000);

  it(
    'a note the agent appends to $LOOP_NOTES_FILE is in its next prompt; ' + 'the last discarded diffs are too',
    async () => {
      // x: 1 (kept, 5), 0 (discarded, 10), 5 (discarded, 5: equal reverts), 2 (kept, 2)
      const { created } = run([1, 0, 5, 2], { FORMAT: 'claude', NOTES: '1' });
      await created.run();
      const [, second, third, fourth] = prompts();
      expect(second).toContain('## Notes (newest first)\n- iteration 1: x=1 tried\n');
      expect(fourth).toContain('- iteration 3: x=5 tried\n- iteration 2: x=0 tried\n- iteration 1: x=1 tried\n');
      expect(third).toContain('### iteration 2 (reverted, score 10): x -> 0\n```diff\n');
      expect(fourth).toMatch(
        new RegExp(
          /### iteration 2 \(reverted, score 10\): x -> 0\n```diff\n[^`]*-\{"x":1\}\n\+\{"x":0\}\n```\n/.source +
            /### iteration 3 \(reverted, score 5\): x -> 5\n```diff\n/.source,
        ),
      );
      expect(readFileSync(join(dir, '.loop/memory/notes.md'), 'utf8').split('\n').filter(Boolean)).toHaveLength(4);
    },
    120_000,
  );

  it('a duplicate the engine refused is named in the next prompt with the iteration it duplicated', async () => {
    // x: 5 (kept), 6 (discarded), 6 again: the tree iteration 2 was evaluated on, so not run; the fourth prompt says
    // so.
    const { created, rows } = run([5, 6, 6, 2], { FORMAT: 'claude' });
    await created.run();
    expect(rows.find((r) => r.iteration === 3)?.description).toContain('(duplicate of iteration 2: not evaluated)');
    expect(prompts()[3]).toContain(
      '## Your last proposal was a duplicate\n- iteration 3 produced exactly ' +
        'the files of iteration 2, which was already evaluated',
    );
    expect(prompts()[2]).not.toContain('duplicate');
  }, 120_000);
});

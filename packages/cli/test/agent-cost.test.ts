// Issue 29: what an agent proposer costs, through `loop run` / `loop resume`: a scripted agent that
// prints Claude Code's JSON result, a cost budget from the command line, the stop summary, `loop
// status`, `loop report --format csv|json` and the dashboard's run view (real git, real processes).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverRuns } from '../src/dashboard/discover.js';
import { readRunView } from '../src/dashboard/run-view.js';
import { createMutatorWorkspace, gitIn } from './fixtures/mutator-workspace.js';
import { runCliCaptured } from './fixtures/run-cli.js';

// Iteration n sets x to XS[n - 1] and reports $0.01 * n and 1000 + n tokens.
const AGENT =
  `import { readFileSync, writeFileSync } from 'node:fs';
readFileSync(0, 'utf8');
const n = Number(process.env.LOOP_ITERATION);
const XS = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
writeFileSync('config.json', JSON.stringify({ x: XS[n - 1] }));
console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'DESCRIPTION: x -> ' + ` +
  `XS[n - 1],
  total_cost_usd: Number((0.01 * n).toFixed(2)), usage: { input_tokens: 900, cache_creation_input_tokens: 0, ` +
  `cache_read_input_tokens: 0, output_tokens: 100 + n } }));
`;

let ws: string;
const loop = (...args: string[]) => runCliCaptured(ws, args);
let run: Awaited<ReturnType<typeof loop>>;

beforeAll(async () => {
  ws = await createMutatorWorkspace('loop-agent-cost-', {
    maxIterations: 10,
    proposer: { type: 'agent', command: 'node agent.mjs', goal: 'lower the score' },
  });
  writeFileSync(join(ws, 'agent.mjs'), AGENT);
  gitIn(ws, 'add', 'agent.mjs');
  gitIn(ws, 'commit', '-q', '-m', 'agent');
  run = await loop('run', '--cost-budget', '0.12');
}, 120_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

describe('loop run with an agent proposer: cost and budgets (issue 29)', () => {
  it(
    '--cost-budget stops before the proposal the mean cost says would go ' +
      'over it, and the summary says what was spent on what',
    () => {
      expect(run.code, run.err).toBe(0);
      expect(run.out).toContain(
        'stopped: cost-budget (spent $0.1000 of a $0.1200 budget over 4 ' +
          'proposals; the next one (mean $0.0250) would go over it;',
      );
      // x: 5 kept (5), 1 equal (reverted), 4 kept (2), 2 equal (reverted): the docs' example, docs/agents-overnight.md.
      const spent =
        'spent $0.1000 and 4,010 tokens on 4 proposals: $0.0400 and 2,004 tokens ' +
        'on 2 kept, $0.0600 and 2,006 tokens on 2 discarded';
      expect(run.out).toContain(`the next one (mean $0.0250) would go over it; ${spent})`);
      expect(run.out.split('\n')).toContain(spent);
    },
  );
  it('loop status shows the cost line', async () => {
    const status = await loop('status');
    expect(status.out).toMatch(/^cost {6}spent \$0\.1000 and 4,010 tokens on 4 proposals/m);
  });
  it("loop report --format csv and json carry each row's cost_usd and tokens as the agent printed them", async () => {
    const csv = (await loop('report', '--format', 'csv')).out
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const header = csv[0]!;
    const usd = csv.slice(1).map((r) => r[header.indexOf('cost_usd')]);
    const tokens = csv.slice(1).map((r) => r[header.indexOf('tokens')]);
    expect(usd).toEqual(['', '0.01', '0.02', '0.03', '0.04']);
    expect(tokens).toEqual(['', '1001', '1002', '1003', '1004']);
    const json = JSON.parse((await loop('report', '--format', 'json')).out) as
      { rows?: { costUsd: number | null }[] } | { costUsd: number | null }[];
    const rows = Array.isArray(json) ? json : json.rows!;
    expect(rows.map((r) => r.costUsd)).toEqual([null, 0.01, 0.02, 0.03, 0.04]);
  });
  it("the dashboard shows each row's cost and the spend", async () => {
    const [ref] = await discoverRuns(ws);
    const view = await readRunView(ref!);
    expect(view.rows.map((r) => r.costUsd ?? null)).toEqual([null, 0.01, 0.02, 0.03, 0.04]);
    expect(view.spent).toContain('spent $0.1000 and 4,010 tokens on 4 proposals');
  });
  it(
    'a resumed run counts what the earlier rows spent (their records come ' + 'back from .loop/records.jsonl)',
    async () => {
      // 0.10 spent; budget 0.2: iteration 5 (mean 0.025) fits -> 0.15; 6 (mean 0.03) fits -> 0.21 >= 0.2: stop.
      const resumed = await loop('resume', '--cost-budget', '0.2');
      expect(resumed.code, resumed.err).toBe(0);
      expect(resumed.out).toContain('stopped: cost-budget (spent $0.2100 of a $0.2000 budget;');
      const rows = readFileSync(join(ws, 'results.tsv'), 'utf8').trim().split('\n');
      expect(rows).toHaveLength(1 + 7);
    },
    120_000,
  );
});

// The agent saves each prompt beside its notes (its memory folder is writable in the sandbox) and appends a note.
const NOTING_AGENT = `import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
const prompt = readFileSync(0, 'utf8');
const n = Number(process.env.LOOP_ITERATION);
writeFileSync(process.env.LOOP_NOTES_FILE + '.prompt-' + process.env.RUN_NAME + '-' + n, prompt);
appendFileSync(process.env.LOOP_NOTES_FILE, process.env.RUN_NAME + ' iteration ' + n + ': x=' + (n + 3) + '\\n');
writeFileSync('config.json', JSON.stringify({ x: n + 3 }));
console.log('DESCRIPTION: x -> ' + (n + 3));
`;

describe("loop run --new keeps the agent's memory (issue 29)", () => {
  let ws2: string;
  afterAll(() => rmSync(ws2, { recursive: true, force: true }));
  it("the notes and the earlier run's rows stay readable to the agent of the next run", async () => {
    ws2 = await createMutatorWorkspace('loop-agent-memory-', {
      maxIterations: 2,
      proposer: { type: 'agent', command: 'RUN_NAME=$RUN_NAME node agent.mjs', goal: 'lower the score' },
    });
    writeFileSync(join(ws2, 'agent.mjs'), NOTING_AGENT);
    gitIn(ws2, 'add', 'agent.mjs');
    gitIn(ws2, 'commit', '-q', '-m', 'agent');
    process.env.RUN_NAME = 'first';
    const first = await runCliCaptured(ws2, ['run']);
    expect(first.code, first.err).toBe(0);
    process.env.RUN_NAME = 'second';
    const second = await runCliCaptured(ws2, ['run', '--new', '--max-iterations', '1']);
    delete process.env.RUN_NAME;
    expect(second.code, second.err).toBe(0);
    const memory = join(ws2, '.loop', 'memory');
    const prompt = readFileSync(join(memory, 'notes.md.prompt-second-1'), 'utf8');
    expect(prompt).toContain('## Notes (newest first)\n- first iteration 2: x=5\n- first iteration 1: x=4\n');
    expect(prompt).toMatch(
      new RegExp(
        String.raw`## Earlier runs in this workspace \(read their rows if ` +
          String.raw`useful\)\n- \.loop\/runs\/[^/]+\/results\.tsv: 2 iterations, ` +
          String.raw`baseline 10, best 2 \(iteration 1: x -> 4\)`,
      ),
    );
  }, 120_000);
});

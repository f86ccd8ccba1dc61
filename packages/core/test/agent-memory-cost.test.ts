import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileArtifact, type ProposalContext } from '../src/index.js';
import { createAgentCommandProposer } from '../src/proposers.js';

let dir: string;
// A scripted agent (sandboxed where bwrap works): saves its prompt, edits config.json, appends a note
// to $LOOP_NOTES_FILE, and reports its usage the way FAKE_FORMAT says.
const AGENT =
  `import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
const prompt = readFileSync(0, 'utf8');
const n = Number(process.env.LOOP_ITERATION);
appendFileSync('prompts.log', '=== ' + n + '\\n' + prompt + '\\n');
writeFileSync('config.json', JSON.stringify({ lr: n }) + '\\n');
appendFileSync(process.env.LOOP_NOTES_FILE, 'note from iteration ' + n + ': lr ' + n + ' tried\\n');
const format = process.env.FAKE_FORMAT;
if (format === 'claude') console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: ` +
  `'DESCRIPTION: lr ' + n, total_cost_usd: 0.01 * n, usage: { input_tokens: 10 * n, ` +
  `cache_creation_input_tokens: 1, cache_read_input_tokens: 2, output_tokens: 3 } }));
else if (format === 'file') { writeFileSync(process.env.LOOP_USAGE_FILE, JSON.stringify({ usd: 0.5, tokens: 777 ` +
  `})); console.log('DESCRIPTION: lr ' + n); }
else if (format === 'claude-error') { console.log(JSON.stringify({ type: 'result', subtype: ` +
  `'error_during_execution', is_error: true, total_cost_usd: 0.2, usage: { input_tokens: 50, output_tokens: ` +
  `5 } })); process.exit(1); }
else console.log('DESCRIPTION: lr ' + n);
`;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-agent-memory-'));
  await writeFile(join(dir, 'config.json'), '{"lr": 0}\n');
  await writeFile(join(dir, 'prompts.log'), '');
  await writeFile(join(dir, 'agent.mjs'), AGENT);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const context = (iteration: number): ProposalContext => ({
  iteration,
  attempt: 0,
  baseline: 1,
  best: 1,
  direction: 'minimize',
  hints: [],
  signal: new AbortController().signal,
  history: [{ iteration: 0, candidateId: 'abc1234', score: 1, status: 'baseline', description: 'baseline' }],
  artifact: createFileArtifact({ root: dir, mutable: ['config.json'] }),
});
const proposer = (format: string, over: Record<string, unknown> = {}) =>
  createAgentCommandProposer({
    command: 'node agent.mjs',
    cwd: dir,
    goal: 'Lower it.',
    writable: [join(dir, 'prompts.log')],
    env: { FAKE_FORMAT: format },
    ...over,
  });
const prompts = async () => (await readFile(join(dir, 'prompts.log'), 'utf8')).split(/^=== \d+$/m).slice(1);

describe('agent proposer: cost and notes', () => {
  it(
    "records the cost Claude Code's JSON result reports in the candidate's " +
      'record (data.cost) and takes the description from its result text',
    async () => {
      const p = await proposer('claude').propose(context(3));
      expect(p.description).toBe('lr 3');
      expect(p.data?.cost).toEqual({ usd: 0.03, tokens: 36 });
      expect(p.data?.agentUsage).toMatchObject({ source: 'claude-json', outputTokens: 3, cachedInputTokens: 2 });
    },
  );
  it(
    'an agent call that fails still reports its cost: PROPOSER_FAILED ' +
      'carries it as details.data (the crash row keeps it)',
    async () => {
      const error = await Promise.resolve(proposer('claude-error').propose(context(1))).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'PROPOSER_FAILED', details: { data: { cost: { usd: 0.2, tokens: 55 } } } });
    },
  );
  it('prefers the usage file the agent wrote to $LOOP_USAGE_FILE, and removes it before the next call', async () => {
    expect((await proposer('file').propose(context(1))).data?.cost).toEqual({ usd: 0.5, tokens: 777 });
    expect((await proposer('none').propose(context(2))).data).toBeUndefined();
  });
  it(
    'a note the agent appends to $LOOP_NOTES_FILE is in the next prompt, ' + 'newest first, bounded by notesLimits',
    async () => {
      const agent = proposer('none', { notesLimits: { maxLines: 2, maxBytes: 4096 } });
      for (const i of [1, 2, 3, 4]) await agent.propose(context(i));
      const [first, second, , fourth] = await prompts();
      expect(first).toContain('## Notes (newest first)\n(none yet)');
      expect(second).toContain('- note from iteration 1: lr 1 tried');
      expect(fourth).toContain(
        '## Notes (newest first; 1 older left out, the file has them all)\n- ' +
          'note from iteration 3: lr 3 tried\n- note from iteration 2: lr 2 ' +
          'tried\n',
      );
      expect(fourth).not.toContain('note from iteration 1');
      expect(fourth).toContain(join(dir, '.loop/memory/notes.md'));
    },
  );
  it('the notes are cut to maxBytes (older whole lines left out)', async () => {
    const agent = proposer('none', { notesLimits: { maxLines: 40, maxBytes: 40 } });
    for (const i of [1, 2, 3]) await agent.propose(context(i));
    const third = (await prompts())[2]!;
    expect(third).toContain('- note from iteration 2: lr 2 tried\n');
    expect(third).not.toContain('note from iteration 1');
  });
});

import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLoopError, type ConfigError } from '@loop/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createScriptedAgent, type ScriptedReply } from './agent.js';
import type { FlowFixContext } from './flow-executor.js';
import { createFlowPipelineExecutor, type FlowPipelineOptions } from './flow-pipeline.js';
import { runFlowCommand } from './flow/run-command.js';
import { fixRecordSchema, type FixRecord } from './records.js';

const BUGGY = 'function add(a, b) {\n  return Math.abs(a) + Math.abs(b);\n}\nmodule.exports = { add };\n';
const FIXED = 'function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n';
const WRONG = 'function add(a, b) {\n  return a - b;\n}\nmodule.exports = { add };\n';
const testFile = (expr: string) =>
  `const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/calc.js');\ntest('add', () => assert.strictEqual(${expr}));\n`;
const EXISTING_TEST = testFile('add(1, 2), 3');
const REPRO = 'test/calc-neg.test.js';
const REPRO_TEST = testFile('add(-1, -2), -3');
const PLAN = '# fix plan\n\n## FIX-001\nWhy: add uses Math.abs\n';

const correctness: FixRecord = fixRecordSchema.parse({
  id: 'FIX-001',
  kind: 'correctness',
  severity: 3,
  fix_confidence: 4,
  root_cause: 'add takes Math.abs of its arguments',
  reproduction_test: `${REPRO}: add(-1, -2) === -3`,
  fix_outline: 'drop Math.abs in add',
  key_files: ['src/calc.js', REPRO],
});
const optimization: FixRecord = fixRecordSchema.parse({
  id: 'FIX-002',
  kind: 'optimization',
  severity: 2,
  fix_confidence: 4,
  root_cause: 'slow add',
  fix_outline: 'inline',
  key_files: ['src/calc.js'],
});

const temps: string[] = [];
afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

async function makeWorktree(): Promise<string> {
  const root = await tempDir('collie-flow-wt-');
  await mkdir(join(root, 'src'));
  await mkdir(join(root, 'test'));
  await mkdir(join(root, '.git'));
  await writeFile(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(join(root, 'src', 'calc.js'), BUGGY);
  await writeFile(join(root, 'test', 'calc.test.js'), EXISTING_TEST);
  await writeFile(join(root, 'README.md'), '# calc\n');
  return root;
}

/** Every entry under root (including .git): path → `dir <mode>` or `<mode> <content>`. */
async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of (await readdir(root, { recursive: true })).sort()) {
    const st = await lstat(join(root, path));
    out[path] = st.isDirectory() ? `dir ${st.mode}` : `${st.mode} ${await readFile(join(root, path), 'utf8')}`;
  }
  return out;
}

/** A reply that really edits the worktree: path → content, or null to delete. */
function edits(root: string, files: Record<string, string | null>, reply: string): ScriptedReply {
  return async () => {
    for (const [path, content] of Object.entries(files)) {
      if (content === null) await rm(join(root, path), { force: true });
      else {
        await mkdir(join(root, path, '..'), { recursive: true });
        await writeFile(join(root, path), content);
      }
    }
    return reply;
  };
}

function script(
  root: string,
  over: Record<string, readonly ScriptedReply[]> = {},
): Record<string, readonly ScriptedReply[]> {
  return {
    'flow-tdd': [edits(root, { [REPRO]: REPRO_TEST }, `wrote ${REPRO}`)],
    'flow-implement': [edits(root, { 'src/calc.js': FIXED }, 'dropped Math.abs')],
    'flow-review': ['Looks right.\nverdict: approve'],
    'flow-simplify': ['nothing'],
    'flow-final-review': ['Root cause fixed.\nverdict: approve'],
    ...over,
  };
}

/** The plan lives in `<root>.run/iter-1/` (outside the worktree, removed with it). */
const ctxOf = (root: string, fix: FixRecord = correctness, signal?: AbortSignal): FlowFixContext => {
  temps.push(`${root}.run`);
  return {
    fix,
    iter: 1,
    worktree: root,
    planPath: join(`${root}.run`, 'iter-1', 'fix-plan.md'),
    planText: PLAN,
    ...(signal ? { signal } : {}),
  };
};
const base = (agent: FlowPipelineOptions['agent']): FlowPipelineOptions => ({
  agent,
  testCommand: 'node --test',
  reproCommand: 'node --test {file}',
  timeoutMs: 30_000,
  graceMs: 100,
});

describe('collie flow pipeline (Stage 5.1 Skill(collie:flow): TDD → implement → review → simplify → regression → final review)', () => {
  it('happy path: the reproduction test is red before the fix and green after, review approves, and apply returns one note line', async () => {
    const root = await makeWorktree();
    const logDir = await tempDir('collie-flow-log-');
    const agent = createScriptedAgent(script(root));
    const flow = createFlowPipelineExecutor({ ...base(agent), logDir });
    const note = await flow.apply(ctxOf(root));
    expect(note).toBe('flow: tdd red→green, review approved in 1 round, regression green, final review approved');
    expect(note).not.toContain('\n');
    expect(await readFile(join(root, 'src', 'calc.js'), 'utf8')).toBe(FIXED);
    expect(await readFile(join(root, REPRO), 'utf8')).toBe(REPRO_TEST);
    const transcript = await readFile(join(logDir, 'FIX-001.flow.md'), 'utf8');
    expect(transcript).toBe(flow.transcriptOf('FIX-001'));
    expect(transcript).toContain('command: `node --test test/calc-neg.test.js`');
    expect(transcript).toMatch(
      /must be red\)\n\ncommand: `node --test test\/calc-neg\.test\.js`\n\nexit code: 1 \(exit 1; red as required\)/,
    );
    expect(transcript).toMatch(
      /regression: reproduction \(must be green\)\n\ncommand: `node --test test\/calc-neg\.test\.js`\n\nexit code: 0/,
    );
    expect(transcript).toContain('flow-tdd (standard → sonnet)');
  });

  it('every agent step is a fresh dispatch with its role and seed tier (sonnet for tdd/implement/review/simplify, opus for the final review) and gets the FIX record and the plan', async () => {
    const root = await makeWorktree();
    const agent = createScriptedAgent(script(root));
    await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root));
    expect(agent.calls.map((c) => [c.role, c.tier])).toEqual([
      ['flow-tdd', 'standard'],
      ['flow-implement', 'standard'],
      ['flow-review', 'standard'],
      ['flow-simplify', 'standard'],
      ['flow-final-review', 'deep'],
    ]);
    for (const call of agent.calls) {
      expect(call.inputs['fix-plan.md']).toBe(PLAN);
      expect(call.inputs['FIX-001.yaml']).toContain('id: FIX-001');
    }
    const review = agent.calls[2]!.inputs['changed-files.md']!;
    expect(review).toContain('### src/calc.js (modified)');
    expect(review).toContain('return a + b;');
    expect(review).toContain(`### ${REPRO} (added)`);
  });

  it('a reproduction test that already passes before the fix does not reproduce: skipped, and the worktree is byte-identical', async () => {
    const root = await makeWorktree();
    const before = await tree(root);
    const agent = createScriptedAgent(
      script(root, { 'flow-tdd': [edits(root, { [REPRO]: testFile('add(2, 3), 5') }, 'wrote a test')] }),
    );
    const note = await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root));
    expect(note).toMatch(/^skipped: reproduction test test\/calc-neg\.test\.js passes before the fix/);
    expect(await tree(root)).toEqual(before);
    expect(agent.calls.map((c) => c.role)).toEqual(['flow-tdd']);
  });

  it('review changes_requested then approve: implement runs again with the review comments as input', async () => {
    const root = await makeWorktree();
    const agent = createScriptedAgent(
      script(root, {
        'flow-implement': [
          edits(root, { 'src/calc.js': WRONG }, 'first try'),
          edits(root, { 'src/calc.js': FIXED }, 'second try'),
        ],
        'flow-review': ['add subtracts now; handle the sign properly\nverdict: changes_requested', 'verdict: approve'],
      }),
    );
    const note = await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root));
    expect(note).toBe('flow: tdd red→green, review approved in 2 rounds, regression green, final review approved');
    const implement = agent.calls.filter((c) => c.role === 'flow-implement');
    expect(implement).toHaveLength(2);
    expect(implement[0]!.inputs['review-comments.md']).toBeUndefined();
    expect(implement[1]!.inputs['review-comments.md']).toContain('handle the sign properly');
  });

  it('a review that never approves within reviewRounds (a reply without a verdict line counts as changes_requested) skips the FIX and restores created, deleted and re-moded files', async () => {
    const root = await makeWorktree();
    const before = await tree(root);
    const agent = createScriptedAgent(
      script(root, {
        'flow-implement': [
          edits(root, { 'src/calc.js': FIXED, 'src/extra/deep/helper.js': 'x\n' }, 'fixed'),
          async () => {
            await rm(join(root, 'README.md'));
            await chmod(join(root, 'src', 'calc.js'), 0o755);
            return 'tweaked';
          },
        ],
        'flow-review': ['I am not sure about this.', 'verdict: changes_requested'],
      }),
    );
    const flow = createFlowPipelineExecutor(base(agent));
    expect(await flow.apply(ctxOf(root))).toBe('skipped: review not approved after 2 rounds');
    expect(await tree(root)).toEqual(before);
    expect(agent.calls.filter((c) => c.role === 'flow-implement')[1]!.inputs['review-comments.md']).toContain(
      'no `verdict:` line',
    );
    expect(flow.transcriptOf('FIX-001')).toContain(
      'outside key_files (recorded, not blocked; G6 audits them): src/extra/deep/helper.js',
    );
  });

  it('a regression suite failing twice (after one more implement round with the log tail) skips the FIX and restores the worktree', async () => {
    const root = await makeWorktree();
    const before = await tree(root);
    const agent = createScriptedAgent(
      script(root, {
        'flow-implement': [
          edits(root, { 'src/calc.js': WRONG }, 'wrong'),
          edits(root, { 'src/calc.js': WRONG }, 'still wrong'),
        ],
      }),
    );
    expect(await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root))).toBe(
      'skipped: regression failed (exit 1)',
    );
    expect(await tree(root)).toEqual(before);
    const implement = agent.calls.filter((c) => c.role === 'flow-implement');
    expect(implement).toHaveLength(2);
    expect(implement[1]!.inputs['regression-log.md']).toContain('result: exit 1');
    expect(agent.calls.some((c) => c.role === 'flow-final-review')).toBe(false);
  });

  it('a regression failure fixed by the extra implement round is green', async () => {
    const root = await makeWorktree();
    const agent = createScriptedAgent(
      script(root, {
        'flow-implement': [
          edits(root, { 'src/calc.js': WRONG }, 'wrong'),
          edits(root, { 'src/calc.js': FIXED }, 'right'),
        ],
      }),
    );
    expect(await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root))).toBe(
      'flow: tdd red→green, review approved in 1 round, regression green after 1 fix round, final review approved',
    );
  });

  it('a final review (deep tier) rejection skips the FIX and restores the worktree; finalReview: false leaves it out', async () => {
    const root = await makeWorktree();
    const before = await tree(root);
    const agent = createScriptedAgent(
      script(root, { 'flow-final-review': ['Too risky.\nverdict: changes_requested'] }),
    );
    expect(await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root))).toBe('skipped: final review rejected');
    expect(await tree(root)).toEqual(before);
    expect(agent.calls.at(-1)).toMatchObject({ role: 'flow-final-review', tier: 'deep' });
    const again = createScriptedAgent(script(root));
    expect(await createFlowPipelineExecutor({ ...base(again), finalReview: false }).apply(ctxOf(root))).toBe(
      'flow: tdd red→green, review approved in 1 round, regression green',
    );
    expect(again.calls.some((c) => c.role === 'flow-final-review')).toBe(false);
  });

  it('an optimization FIX without reproduction_test skips TDD; changes outside key_files are recorded, not blocked', async () => {
    const root = await makeWorktree();
    const agent = createScriptedAgent(
      script(root, { 'flow-implement': [edits(root, { 'src/calc.js': FIXED, 'notes.txt': 'n\n' }, 'inlined')] }),
    );
    const flow = createFlowPipelineExecutor(base(agent));
    expect(await flow.apply(ctxOf(root, optimization))).toBe(
      'flow: no tdd (optimization), review approved in 1 round, regression green, final review approved, changed outside key_files: notes.txt',
    );
    expect(agent.calls.map((c) => c.role)).not.toContain('flow-tdd');
    expect(await readFile(join(root, 'notes.txt'), 'utf8')).toBe('n\n');
    expect(flow.transcriptOf('FIX-002')).toContain(
      'outside key_files (recorded, not blocked; G6 audits them): notes.txt',
    );
  });

  it('implement may not edit the new reproduction test (it must turn green by the fix): skipped and restored', async () => {
    const root = await makeWorktree();
    const before = await tree(root);
    const agent = createScriptedAgent(
      script(root, { 'flow-implement': [edits(root, { [REPRO]: EXISTING_TEST }, 'weakened the test')] }),
    );
    expect(await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root))).toBe(
      `skipped: implement changed the reproduction test ${REPRO}`,
    );
    expect(await tree(root)).toEqual(before);
  });

  it('a TDD step that writes no new test file among the key files skips the FIX', async () => {
    const root = await makeWorktree();
    const before = await tree(root);
    const agent = createScriptedAgent(
      script(root, { 'flow-tdd': [edits(root, { 'test/other.test.js': REPRO_TEST }, 'wrote elsewhere')] }),
    );
    expect(await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root))).toBe(
      'skipped: tdd wrote no new test file among the key files',
    );
    expect(await tree(root)).toEqual(before);
  });

  it('a command running past timeoutMs is killed: the regression counts as failed (timed out), the FIX is skipped and restored', async () => {
    const root = await makeWorktree();
    const before = await tree(root);
    const agent = createScriptedAgent(script(root), { repeatLast: true });
    const flow = createFlowPipelineExecutor({
      ...base(agent),
      testCommand: 'node -e "setTimeout(() => {}, 60000)"',
      timeoutMs: 300,
      graceMs: 100,
    });
    expect(await flow.apply(ctxOf(root, optimization))).toBe('skipped: regression failed (timed out after 300 ms)');
    expect(await tree(root)).toEqual(before);
    expect(flow.transcriptOf('FIX-002')).toContain('exit code: none (timed out after 300 ms');
  });

  it('agent failures propagate (PROPOSER_FAILED) after the worktree is restored', async () => {
    const root = await makeWorktree();
    const before = await tree(root);
    const { 'flow-review': _, ...noReview } = script(root);
    const agent = createScriptedAgent(noReview);
    await expect(createFlowPipelineExecutor(base(agent)).apply(ctxOf(root))).rejects.toSatisfy((e) =>
      isLoopError(e, 'PROPOSER_FAILED'),
    );
    expect(await tree(root)).toEqual(before);
  });

  it('ctx.signal aborts the FIX with PROPOSER_FAILED after restoring the worktree', async () => {
    const root = await makeWorktree();
    const before = await tree(root);
    const ac = new AbortController();
    const write = edits(root, { [REPRO]: REPRO_TEST }, 'wrote');
    const agent = createScriptedAgent(
      script(root, {
        'flow-tdd': [async (r) => (await (typeof write === 'function' ? write(r) : write)) + (ac.abort(), '')],
      }),
    );
    await expect(createFlowPipelineExecutor(base(agent)).apply(ctxOf(root, correctness, ac.signal))).rejects.toSatisfy(
      (e) =>
        isLoopError(e, 'PROPOSER_FAILED') && (e as { details: Record<string, unknown> }).details['aborted'] === true,
    );
    expect(agent.calls[0]!.signal).toBe(ac.signal);
    expect(await tree(root)).toEqual(before);
  });

  it('a command that cannot be spawned is HARNESS_FAILED', async () => {
    const dir = await tempDir('collie-flow-cmd-');
    await expect(
      runFlowCommand({
        command: 'true',
        cwd: join(dir, 'missing'),
        env: process.env,
        logPath: join(dir, 'x.log'),
        timeoutMs: 5000,
        graceMs: 100,
      }),
    ).rejects.toSatisfy((e) => isLoopError(e, 'HARNESS_FAILED'));
  });

  it("without logDir the transcript goes to iter-N/flow/ next to fix-plan.md, and the final reviewer gets the suite's log, not only the reproduction test's", async () => {
    const root = await makeWorktree();
    const agent = createScriptedAgent(script(root));
    const flow = createFlowPipelineExecutor(base(agent));
    const ctx = ctxOf(root);
    await flow.apply(ctx);
    expect(await readFile(join(`${root}.run`, 'iter-1', 'flow', 'FIX-001.flow.md'), 'utf8')).toContain('FIX-001');
    const finalReview = agent.calls.find((c) => c.role === 'flow-final-review')!;
    expect(finalReview.inputs['regression.md']).toMatch(
      /^command: node --test\nresult: exit 0[\s\S]*command: node --test test\/calc-neg\.test\.js\nresult: exit 0/,
    );
  });

  it('invalid options are CONFIG_INVALID naming the field; a logDir inside the worktree is refused by apply', async () => {
    const agent = createScriptedAgent({});
    const cases: [Partial<Record<keyof FlowPipelineOptions, unknown>>, string][] = [
      [{ testCommand: '  ' }, 'testCommand'],
      [{ timeoutMs: 0 }, 'timeoutMs'],
      [{ graceMs: -1 }, 'graceMs'],
      [{ reviewRounds: 0 }, 'reviewRounds'],
      [{ logDir: 'relative/logs' }, 'logDir'],
      [{ agent: {} }, 'agent'],
      [{ reproCommand: 42 }, 'reproCommand'],
      [{ finalReview: 'yes' }, 'finalReview'],
    ];
    for (const [patch, field] of cases) {
      let error: unknown;
      try {
        createFlowPipelineExecutor({ ...base(agent), ...patch } as FlowPipelineOptions);
      } catch (e) {
        error = e;
      }
      expect(isLoopError(error, 'CONFIG_INVALID'), field).toBe(true);
      expect((error as ConfigError).issues.map((i) => i.path)).toContain(field);
    }
    const root = await makeWorktree();
    await expect(
      createFlowPipelineExecutor({ ...base(agent), logDir: join(root, 'logs') }).apply(ctxOf(root)),
    ).rejects.toSatisfy((e) => isLoopError(e, 'CONFIG_INVALID'));
  });
});

// The flow pipeline's failures: timeouts, agent failures, aborts, commands that cannot start, bad options.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isLoopError, type ConfigError } from '@loop/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createScriptedAgent } from './agent.js';
import { createFlowPipelineExecutor, type FlowPipelineOptions } from './flow-pipeline.js';
import { runFlowCommand } from './flow/run-command.js';
import {
  REPRO,
  REPRO_TEST,
  base,
  correctness,
  ctxOf,
  edits,
  makeWorktree,
  optimization,
  removeTemps,
  script,
  tempDir,
  tree,
} from './internal/flow-pipeline-fixture.js';

afterEach(removeTemps);

describe('collie flow pipeline failures (Stage 5.1)', () => {
  it(
    'a command running past timeoutMs is killed: the regression counts as ' +
      'failed (timed out), the FIX is skipped and restored',
    async () => {
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
    },
  );

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

  it(
    'without logDir the transcript goes to iter-N/flow/ next to fix-plan.md, ' +
      "and the final reviewer gets the suite's log, not only the reproduction " +
      "test's",
    async () => {
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
    },
  );

  it(
    'invalid options are CONFIG_INVALID naming the field; a logDir inside ' + 'the worktree is refused by apply',
    async () => {
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
    },
  );
});

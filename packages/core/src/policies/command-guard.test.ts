import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCounterProposer, createFakeHarness } from '@loop/internal-test-utils';
import { createCommandGuard } from './command-guard.js';
import { createLoop } from '../engine/create-loop.js';
import { isLoopError } from '../contracts/errors.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { maxIterations } from '../contracts/stop-policy.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-guard-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function loopWith(command: string, scores: number[], extra: Partial<Parameters<typeof createCommandGuard>[0]> = {}) {
  const artifact = createMemoryArtifact(0);
  const results = createMemoryResultsLog();
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    results,
    proposer: createCounterProposer(artifact),
    harness: createFakeHarness({ scores }),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(scores.length - 1),
    keep: { guards: [createCommandGuard({ command, cwd: dir, ...extra })] },
  });
  return { artifact, results, loop };
}

describe('createCommandGuard (the checks gate)', () => {
  it(
    'a failing correctness command blocks the keep of a better candidate: ' +
      'the row is checks_failed with the exit code and the last log line',
    async () => {
      const { results, artifact, loop } = loopWith('echo "1 test failed: parse"; exit 3', [10, 5]);
      const summary = await loop.run();
      expect(results.rows[1]).toMatchObject({ status: 'reverted', label: 'checks_failed', score: 5 });
      expect(results.rows[1]!.note).toBe(
        'checks: `echo "1 test failed: parse"; exit 3` exited 3: 1 test failed: parse',
      );
      expect(summary.best).toBe(10);
      expect(artifact.get()).toBe(0);
      expect(await readFile(join(dir, 'checks.log'), 'utf8')).toContain('1 test failed');
    },
  );

  it(
    'a passing command lets the keep through, and it runs only for ' + 'candidates the keep policy would keep',
    async () => {
      await writeFile(join(dir, 'count'), '');
      const { results, loop } = loopWith('echo x >> count', [10, 11, 9]);
      await loop.run();
      expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'reverted', 'kept']);
      expect((await readFile(join(dir, 'count'), 'utf8')).trim().split('\n')).toHaveLength(1);
    },
  );

  it(
    'a command past its timeout is killed with its whole tree and fails the ' + 'check (no orphan keeps running)',
    async () => {
      const { results, loop } = loopWith('sh -c "sleep 31.517" & sleep 31.517', [10, 5], {
        timeoutMs: 300,
        graceMs: 50,
      });
      await loop.run();
      expect(results.rows[1]!.note).toContain('timed out after 300 ms');
      const alive: string[] = [];
      for (const pid of await readdir('/proc')) {
        if (!/^\d+$/.test(pid)) continue;
        const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
        if (cmd.includes('31.517')) alive.push(cmd);
      }
      expect(alive).toEqual([]);
    },
  );

  it('onFail halt stops the loop with the stop sequence; invalid options name the field', async () => {
    const { results, loop } = loopWith('exit 1', [10, 5, 4], { onFail: 'halt' });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('halted');
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'halted']);
    try {
      createCommandGuard({ command: '', cwd: 'relative' });
      expect.unreachable();
    } catch (error) {
      expect(isLoopError(error, 'CONFIG_INVALID')).toBe(true);
      expect((error as Error).message).toMatch(/command/);
    }
  });
});

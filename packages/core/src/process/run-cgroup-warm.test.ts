import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCommandHarness } from '../harness/command-harness.js';
import { runCgroupBase, warmRunCgroups } from './run-cgroup.js';

const ownCgroup = () => readFileSync('/proc/self/cgroup', 'utf8');
const cgroups = runCgroupBase() !== null;
let dir: string | undefined;
afterEach(async () => {
  delete process.env.LOOP_CGROUP;
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('warming the cgroup migration (issue 31)', () => {
  it('with per-run cgroups off (LOOP_CGROUP=off) it writes nothing and resolves false', async () => {
    process.env.LOOP_CGROUP = 'off';
    expect(await warmRunCgroups()).toBe(false);
  });

  it.runIf(cgroups)(
    'moves nothing: the loop stays in its own cgroup, and calls in flight share one write',
    async () => {
      const before = ownCgroup();
      const first = warmRunCgroups();
      expect(warmRunCgroups()).toBe(first);
      expect(await first).toBe(true);
      expect(ownCgroup()).toBe(before);
    },
  );

  it.runIf(cgroups)('a run after the command harness prepared still runs in a cgroup of its own', async () => {
    dir = await mkdtemp(join(tmpdir(), 'loop-warm-'));
    const harness = createCommandHarness({ command: 'cat /proc/self/cgroup', cwd: dir, timeBudgetMs: 10_000 });
    harness.prepare!({ iteration: 1 });
    const record = await harness.run({ iteration: 1, signal: new AbortController().signal });
    expect(record.exitCode).toBe(0);
    expect(await readFile(record.logPath!, 'utf8')).toMatch(/^0::.*\/loop-[0-9a-f]+$/m);
    expect(ownCgroup()).not.toMatch(/loop-/);
  });
});

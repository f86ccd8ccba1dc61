import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCommandHarness, type ProposalContext } from '../src/index.js';
import { createDirectoryWorkingCopies } from '../src/artifacts.js';
import { createAgentCommandProposer } from '../src/proposers.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a pid file shared by the harnesses of several working copies (issue 15)', () => {
  let dir: string;
  let root: string;
  let temp: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loop-shared-pid-'));
    root = join(dir, 'ws');
    temp = join(dir, 'copies');
    await mkdir(join(dir, 'started'), { recursive: true });
    await mkdir(root);
    await writeFile(join(root, 'train.txt'), '1\n');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it(
    "one candidate's orphan sweep never kills a live sibling: 4 overlapping " +
      'runs with one pidFile all exit 0, each recorded in its own file',
    async () => {
      const pidFile = join(dir, 'run.pgid');
      const started = join(dir, 'started');
      const release = join(dir, 'release');
      // Each run announces itself, then waits until the test releases it: every run overlaps the others.
      const command = `touch ${started}/$LOOP_K; while [ ! -e ${release} ]; do sleep 0.02; done; echo done`;
      const copies = createDirectoryWorkingCopies({
        root,
        mutable: ['train.txt'],
        tempDir: temp,
        harness: (cwd, { k }) =>
          createCommandHarness({
            command,
            cwd,
            pidFile,
            env: { LOOP_K: String(k) },
            timeBudgetMs: 60_000,
            graceMs: 100,
          }),
      });
      const made = await Promise.all([0, 1, 2, 3].map((k) => copies.create(1, k)));
      try {
        // Started one after another, each once the previous one runs: every sweep finds live siblings' files.
        const runs = [];
        for (const c of made) {
          runs.push(c.harness.run({ iteration: 1, signal: new AbortController().signal }));
          await vi.waitFor(async () => expect(await readdir(started)).toContain(String(c.k)), {
            timeout: 10_000,
            interval: 10,
          });
        }
        // While all 4 run, four pid files exist: run.pgid, run.pgid.1, .2, .3.
        const pidFiles = async () => (await readdir(dir)).filter((n) => n.startsWith('run.pgid')).sort();
        await vi.waitFor(
          async () => expect(await pidFiles()).toEqual(['run.pgid', 'run.pgid.1', 'run.pgid.2', 'run.pgid.3']),
          { timeout: 10_000, interval: 10 },
        );
        await writeFile(release, '');
        const records = await Promise.all(runs);
        expect(records.map((r) => ({ exitCode: r.exitCode, signal: r.signal, timedOut: r.timedOut }))).toEqual(
          Array(4).fill({ exitCode: 0, signal: null, timedOut: false }),
        );
        expect(await pidFiles()).toEqual([]);
      } finally {
        await Promise.all(made.map((c) => c.dispose?.()));
      }
    },
  );

  it(
    "overlapping agent calls with one pidFile (parallel candidates' agents) " +
      "both finish: the second call's sweep does not end the first",
    async () => {
      const started = join(dir, 'started');
      const release = join(dir, 'release');
      const command =
        `touch ${started}/$LOOP_ITERATION; while [ ! -e ${release} ]; do sleep ` +
        `0.02; done; echo "agent $LOOP_ITERATION done"`;
      const agent = createAgentCommandProposer({
        command,
        cwd: root,
        goal: 'g',
        buildPrompt: () => 'edit',
        pidFile: join(dir, 'agent.pgid'),
        sandbox: 'none',
      });
      // Each call in its own copy (its own .loop/agent.log), as in a parallel batch.
      const context = (iteration: number) => {
        const copy = join(dir, `copy-${iteration}`);
        return {
          iteration,
          attempt: 0,
          signal: new AbortController().signal,
          workingCopy: { dir: copy },
        } as unknown as ProposalContext;
      };
      await mkdir(join(dir, 'copy-1'));
      await mkdir(join(dir, 'copy-2'));
      const first = agent.propose(context(1));
      await vi.waitFor(async () => expect(await readdir(started)).toContain('1'), { timeout: 10_000, interval: 10 });
      await vi.waitFor(async () => expect(await readdir(dir)).toContain('agent.pgid'), {
        timeout: 10_000,
        interval: 10,
      });
      const second = agent.propose(context(2));
      await vi.waitFor(async () => expect(await readdir(started)).toContain('2'), { timeout: 10_000, interval: 10 });
      await writeFile(release, '');
      const proposals = await Promise.all([first, second]);
      expect(proposals.map((p) => p.description)).toEqual(['agent 1 done', 'agent 2 done']);
    },
  );

  it('the orphan of a numbered slot left by a killed controller is still ended by the next run', async () => {
    const pidFile = join(dir, 'run.pgid');
    const child = spawn('/bin/sh', ['-c', 'exec sleep 60'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, LOOP_RUN_TOKEN: 'tok-orphan2' },
    });
    child.unref();
    const pgid = child.pid!;
    await writeFile(`${pidFile}.2`, JSON.stringify({ pgid, token: 'tok-orphan2' }));
    try {
      await createCommandHarness({ command: 'echo ok', cwd: root, pidFile, graceMs: 100 }).run({
        iteration: 1,
        signal: new AbortController().signal,
      });
      await vi.waitFor(() => expect(isAlive(pgid)).toBe(false), { timeout: 5000, interval: 20 });
    } finally {
      if (isAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    }
  });
});

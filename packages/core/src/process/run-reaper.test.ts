import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pidsWithEnv } from '@loop/internal-test-utils';
import { createAgentCommandProposer } from '../proposers/agent-command-proposer.js';
import { createCommandHarness } from '../harness/command-harness.js';
import { createFileArtifact } from '../artifacts/file-artifact.js';
import type { ProposalContext } from '../contracts/proposer.js';
import { createRegexScorer } from '../scoring/regex-scorer.js';
import { describeExit } from './process-group.js';
import { runCgroupBase } from './run-cgroup.js';
import { pidsWithToken, signalTokenHolders } from './token-scan.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let dir: string;
let marker: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-reaper-'));
  marker = `LOOP_TEST_MARKER=${randomBytes(6).toString('hex')}`;
});
afterEach(async () => {
  for (const pid of pidsWithEnv(marker)) process.kill(pid, 'SIGKILL'); // never leave a test's daemon behind
  await rm(dir, { recursive: true, force: true });
});

const markerEnv = () => Object.fromEntries([marker.split('=') as [string, string]]);
const signal = () => new AbortController().signal;

describe('no process outlives its step (real processes, setsid escapees)', () => {
  it('a harness grandchild that calls setsid and sleeps is gone once the timeout crash row is scored', async () => {
    await writeFile(join(dir, 'hang.sh'), 'setsid sleep 60 &\necho up > daemon.up\nsleep 60\n');
    const harness = createCommandHarness({
      command: 'sh hang.sh',
      cwd: dir,
      timeBudgetMs: 100,
      killTimeoutMs: 300,
      graceMs: 100,
      env: markerEnv(),
      sandbox: 'none',
    });
    const result = await createRegexScorer({ pattern: '^val_bpb:\\s*(\\S+)', direction: 'minimize' }).score(
      await harness.run({ iteration: 1, signal: signal() }),
    );
    expect(result).toMatchObject({ ok: false, reason: 'timeout' });
    expect(await readFile(join(dir, 'daemon.up'), 'utf8')).toBe('up\n');
    expect(pidsWithEnv(marker)).toEqual([]);
  });

  it('a setsid daemon of a run that exits normally is gone when run() returns', async () => {
    const harness = createCommandHarness({
      command: 'setsid sleep 60 & echo "val_bpb: 1"',
      cwd: dir,
      env: markerEnv(),
      sandbox: 'none',
    });
    expect((await harness.run({ iteration: 1, signal: signal() })).exitCode).toBe(0);
    expect(pidsWithEnv(marker)).toEqual([]);
  });

  it("an agent proposer's setsid daemon is gone when the proposal ends", async () => {
    await writeFile(join(dir, 'config.json'), '{}\n');
    const agent =
      'setsid sh -c "while :; do sleep 1; done" >/dev/null 2>&1 & echo ' +
      '"{\\"lr\\":2}" > config.json; echo "DESCRIPTION: lr 2"';
    const proposer = createAgentCommandProposer({
      command: agent,
      cwd: dir,
      goal: 'g',
      env: markerEnv(),
      sandbox: 'none',
    });
    const context: ProposalContext = {
      iteration: 1,
      attempt: 0,
      history: [],
      baseline: 1,
      best: 1,
      direction: 'minimize',
      hints: [],
      artifact: createFileArtifact({ root: dir, mutable: ['config.json'], readOnly: [] }),
      signal: signal(),
    };
    expect(await proposer.propose(context)).toEqual({ description: 'lr 2', changedFiles: ['config.json'] });
    expect(pidsWithEnv(marker)).toEqual([]);
  });

  it(
    "a SIGKILLed controller's setsid orphan survives it and is killed by the " + 'next run that finds the pid file',
    async () => {
      const pidFile = join(dir, '.loop', 'run.pgid');
      const controller = join(dir, 'controller.mts');
      const core = join(packageDir, 'src', 'process.ts');
      await writeFile(
        controller,
        `import { runInGroup } from ${JSON.stringify(core)};
await runInGroup({ command: 'setsid sleep 60 & echo up > daemon.up; sleep 60', cwd: ${JSON.stringify(dir)}, env: { ` +
          `...process.env, ${JSON.stringify(marker.split('=')[0])}: ${JSON.stringify(marker.split('=')[1])} }, ` +
          `outputFd: 1, killTimeoutMs: 60_000, graceMs: 100, pidFile: ${JSON.stringify(pidFile)} });
`,
      );
      const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', controller], {
        cwd: packageDir,
        stdio: 'ignore',
      });
      await vi.waitFor(async () => expect(await readFile(join(dir, 'daemon.up'), 'utf8')).toBe('up\n'), {
        timeout: 20_000,
        interval: 25,
      });
      await vi.waitFor(() => expect(pidsWithEnv(marker).length).toBeGreaterThanOrEqual(3), {
        timeout: 5000,
        interval: 25,
      }); // shell, its sleep, the setsid sleep
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      expect(pidsWithEnv(marker).length).toBeGreaterThanOrEqual(2); // the fault: nothing ended the detached command
      const recorded = JSON.parse(await readFile(pidFile, 'utf8')) as { token: string; cgroup?: string };
      expect(recorded.cgroup !== undefined).toBe(runCgroupBase() !== null);
      const next = createCommandHarness({ command: 'echo "val_bpb: 1"', cwd: dir, pidFile, graceMs: 200 });
      expect((await next.run({ iteration: 1, signal: signal() })).exitCode).toBe(0);
      expect(pidsWithEnv(marker)).toEqual([]);
      expect(pidsWithToken(recorded.token)).toEqual([]);
    },
  );

  it('with cgroups off (LOOP_CGROUP=off) the run-token scan ends a harness grandchild that called setsid', async () => {
    process.env.LOOP_CGROUP = 'off';
    try {
      expect(runCgroupBase()).toBeNull();
      const harness = createCommandHarness({
        command: 'setsid sleep 60 & cat run.pgid',
        cwd: dir,
        env: markerEnv(),
        sandbox: 'none',
        pidFile: join(dir, 'run.pgid'),
      });
      expect((await harness.run({ iteration: 1, signal: signal() })).exitCode).toBe(0);
      expect(JSON.parse(await readFile(join(dir, 'run.log'), 'utf8'))).not.toHaveProperty('cgroup');
      expect(pidsWithEnv(marker)).toEqual([]);
    } finally {
      delete process.env.LOOP_CGROUP;
    }
  });

  it('the run-token scan alone (no cgroup) finds and kills a setsid process carrying the token', async () => {
    const token = randomBytes(8).toString('hex');
    const daemon = spawn('setsid', ['sleep', '60'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, LOOP_RUN_TOKENS: `outer ${token}`, ...markerEnv() },
    });
    daemon.unref();
    // setsid (a group leader here) forks, and the child execs sleep: wait for the exec'd sleep, not
    // the setsid parent or the child mid-exec, whose environ may read empty for an instant.
    const comm = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        return '';
      }
    };
    await vi.waitFor(() => expect(pidsWithToken(token).map(comm)).toEqual(['sleep']), { timeout: 5000, interval: 10 });
    expect(signalTokenHolders(token, 'SIGKILL').length).toBeGreaterThanOrEqual(1);
    await vi.waitFor(() => expect(pidsWithEnv(marker)).toEqual([]), { timeout: 5000, interval: 10 });
  });

  it.skipIf(runCgroupBase() === null)(
    `the run's cgroup ends a daemon that cleared its environment (no token ` +
      `to find)${runCgroupBase() === null ? ' — skipped: no writable cgroup v2 here' : ''}`,
    async () => {
      await writeFile(join(dir, 'clear.sh'), `env -i ${marker} setsid sleep 60 &\necho "val_bpb: 1"\n`);
      const harness = createCommandHarness({ command: 'sh clear.sh', cwd: dir, sandbox: 'none' });
      await harness.run({ iteration: 1, signal: signal() });
      expect(pidsWithEnv(marker)).toEqual([]);
    },
  );
});

describe('exit codes above 128 name their signal', () => {
  it('139 is killed by SIGSEGV, 137 by SIGKILL; a plain code and a signal keep their words', () => {
    expect(describeExit(139, null)).toBe('killed by SIGSEGV (exit code 139)');
    expect(describeExit(137, null)).toBe('killed by SIGKILL (exit code 137)');
    expect(describeExit(3, null)).toBe('exited with code 3');
    expect(describeExit(null, 'SIGTERM')).toBe('killed by SIGTERM');
  });

  it(
    'a harness whose program segfaults gives the crash row "killed by ' +
      'SIGSEGV", reason killed, not "exited with code 139"',
    async () => {
      const harness = createCommandHarness({ command: "sh -c 'kill -SEGV $$'; exit $?", cwd: dir, sandbox: 'none' });
      const run = await harness.run({ iteration: 1, signal: signal() });
      expect(run.exitCode).toBe(139);
      const result = await createRegexScorer({ pattern: '^val_bpb:\\s*(\\S+)', direction: 'minimize' }).score(run);
      expect(result).toMatchObject({ ok: false, reason: 'killed', message: 'killed by SIGSEGV (exit code 139)' });
    },
  );
});

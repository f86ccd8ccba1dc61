// `loop collie` end to end: the real CLI as separate processes driving the collie autoiter pipeline
// over a temp git repository, with a fake agent CLI (a shell script answering by $COLLIE_AGENT_ROLE)
// and an answers file (a queued run).
//
// The spawned CLI is src/main.ts bundled once with esbuild (the compiler tsx and tsup use, so the
// same code as the published dist): a process then starts in ~0.5 s instead of ~2 s under tsx,
// which keeps the 13 one-step processes of a whole run fast. cli.test.ts runs src/main.ts via tsx.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { COMPLETION_SIGNAL, resolveColliePaths } from '@loop/collie';
import { acquireLock } from '@loop/core/files';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseConfigTextOf } from '../src/load-config.js';
import { runCli } from '../src/cli.js';
import { COLLIE_CONFIG_KIND } from '../src/collie/load.js';
import { bundleCli } from './bundled-cli.js';
import type { CollieStatus } from '../src/collie/status.js';

let bundleDir: string;
let BUNDLE: string;
beforeAll(async () => {
  bundleDir = mkdtempSync(join(tmpdir(), 'loop-collie-bin-'));
  BUNDLE = await bundleCli(bundleDir);
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

let root: string;
let project: string;

/** `loop <args>` as a separate process in `root`. */
function loop(args: string[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CI: '1' };
    delete env['COLLIE_AUTOITER_ACTIVE'];
    delete env['COLLIE_AUTOITER_NOTIFY_CMD'];
    const child = spawn(process.execPath, [BUNDLE, ...args], { cwd: root, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `loop <args>` in this process (runCli with collecting streams). */
async function loopIn(args: string[]): Promise<Result> {
  const sink = () => {
    const s = Object.assign(new Writable({ write: (chunk, _enc, cb) => ((s.text += String(chunk)), cb()) }), {
      text: '',
    });
    return s;
  };
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(args, { stdout, stderr, cwd: root });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
const count = (text: string, what: string) => text.split(what).length - 1;
const ticks = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('[autoiter '))
    .map((l) =>
      l.replace(/^\[autoiter \S+\]/, '[autoiter <run>]').replace(/ worktree \/\S+,/, ' worktree <worktree>,'),
    );

/** The fake agent CLI: discovery ranks the trigger, every other role (observe) sees no issue. */
const AGENT = `cat > /dev/null
case "$COLLIE_AGENT_ROLE" in
  discovery) echo '1. echo "score: 1" (shell, 5): prints the score' ;;
  *) echo 'NO ISSUES' ;;
esac
`;

/** Writes collie.config.yaml (stateRoot inside root) with `extra` lines, and the answers file. */
function writeConfig(answers: Record<string, string>, extra = ''): void {
  writeFileSync(join(root, 'answers.json'), JSON.stringify(answers));
  writeFileSync(
    join(root, 'collie.config.yaml'),
    `projectId: app
projectDir: project
task: keep the suite green
stateRoot: state
agent:
  command: sh ${join(root, 'agent.sh')}
  timeoutS: 30
answers: answers.json
flow:
  testCommand: "true"
${extra}`,
  );
}
const GREEN = { Q1: 'echo "score: 1"', Q2: 'all_green', Q3: 'correctness', Q5: 'yes' };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loop-collie-'));
  project = join(root, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# app\n');
  git(project, 'init', '-q', '-b', 'main');
  git(project, 'add', '.');
  git(project, 'commit', '-q', '-m', 'init');
  writeFileSync(join(root, 'agent.sh'), AGENT);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The ticks of a converging single-iteration run, in order. */
const CONVERGED_TICKS = [
  'Stage 0 → Discovery & Lock',
  'Stage 0 → run spec written; restart to continue',
  '§3.5 recovery → run-spec.md copied, worktree <worktree>, state.json initialised (iter 1)',
  'iter-1 Stage 1 → Kickoff',
  'iter-1 Stage 2 → trigger running (timeout: 30min)',
  'iter-1 Stage 3 → 0 issues recorded, 0 blocking',
  'iter-1 Stage 4a → triage complete (0 → 0 to Deep Verify)',
  'iter-1 Stage 4b → 0 issues in parallel Deep Verify',
  'iter-1 Stage 5.0 → fix-plan.md built (0 FIX)',
  'iter-1 Stage 5.1 → flow applied 0 FIX (0 commits)',
  'iter-1 Stage 5.2 → G6 diff audit PASS, G1 PASS',
  'iter-1 Stage 5.3 → rerun done, scalar=1',
  'Stage 6 → STOP (SC2: all green)',
  'All done — status=converged',
].map((t) => `[autoiter <run>] ${t}`);

describe('loop collie (the real CLI on a temp git repository, fake agent CLI, answers file)', () => {
  it(
    'loop collie run steps to the end: converged, exit 0, the completion ' +
      'signal printed once; status reads the files',
    async () => {
      writeConfig(GREEN);
      expect((await loopIn(['collie', 'status'])).stdout).toContain('no run yet');

      const run = await loop(['collie', 'run']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(ticks(run.stdout)).toEqual(CONVERGED_TICKS);
      expect(count(run.stdout, COMPLETION_SIGNAL)).toBe(1);
      const runId = /^run (\S+) ended: converged \(13 steps\)$/m.exec(run.stdout)?.[1];
      expect(runId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
      // The run worked in a git worktree; the user's checkout is untouched.
      expect(existsSync(join(project, '.worktrees', `autoiter-${runId}`))).toBe(true);
      expect(git(project, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');

      const status = await loopIn(['collie', 'status', '--json']);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout) as CollieStatus).toMatchObject({
        runId,
        active: false,
        locked: false,
        status: 'converged',
        iteration: 1,
        stopReason: 'SC2: all green',
        lastScalar: 1,
        statusLine: expect.stringMatching(/^DONE · SC2: all green/),
      });
      expect((JSON.parse(status.stdout) as CollieStatus).tokensUsed).toBeGreaterThan(0);
      const text = await loopIn(['collie', 'status']);
      expect(text.stdout).toContain(`run       ${runId} (ended: current-run removed)`);
      expect(text.stdout).toContain('status    converged');
      expect(text.stdout).toContain('stopped   SC2: all green');
    },
  );

  it(
    'loop collie step in one process per session restart reaches the same ' +
      'end; the signal appears only on the terminal step',
    async () => {
      writeConfig(GREEN);
      const outputs: string[] = [];
      for (let i = 0; i < 20 && !outputs.at(-1)?.includes(COMPLETION_SIGNAL); i += 1) {
        const step = await loop(['collie', 'step']);
        expect(step.stderr).toBe('');
        expect(step.code).toBe(0);
        outputs.push(step.stdout);
        if (i === 2) {
          // Mid-run, status reads state.json without the lock.
          expect(JSON.parse((await loopIn(['collie', 'status', '--json'])).stdout)).toMatchObject({
            active: true,
            locked: false,
            status: 'running',
            iteration: 1,
            stage: 'trigger',
          });
        }
      }
      expect(outputs).toHaveLength(13);
      expect(outputs.map((o) => count(o, COMPLETION_SIGNAL))).toEqual([...Array(12).fill(0), 1]);
      expect(ticks(outputs.join(''))).toEqual(CONVERGED_TICKS);
      expect(JSON.parse((await loopIn(['collie', 'status', '--json'])).stdout)).toMatchObject({
        active: false,
        status: 'converged',
        stopReason: 'SC2: all green',
      });
    },
  );

  it(
    'a run that hits its iteration cap ends budget_exhausted with exit 0 ' +
      '(--json prints the outcomes, ticks go to stderr)',
    async () => {
      writeConfig({ ...GREEN, Q2: 'scalar_threshold 100' }, 'maxIterations: 1\nworktree: false\n');
      const run = await loopIn(['collie', 'run', '--json']);
      expect(run.code).toBe(0);
      const outcomes = JSON.parse(run.stdout) as { kind: string; status?: string; signal?: string }[];
      expect(outcomes.at(-1)).toMatchObject({ kind: 'done', status: 'budget_exhausted', signal: COMPLETION_SIGNAL });
      expect(outcomes[0]).toMatchObject({ kind: 'stage0' });
      expect(count(run.stderr, COMPLETION_SIGNAL)).toBe(1);
      expect(run.stderr).toContain('STOP (SC1: iteration cap reached (1 >= 1))');
    },
  );

  it('a second controller while one holds the lock exits 3 (LOCK_HELD) and touches no file', async () => {
    writeConfig(GREEN);
    const paths = resolveColliePaths(join(root, 'state'), 'app', 'cli');
    const lock = await acquireLock({ path: paths.lock });
    try {
      const step = await loop(['collie', 'step']);
      expect(step.code).toBe(3);
      expect(step.stderr).toContain('error [LOCK_HELD]');
      expect(step.stdout).toBe('');
      const run = await loopIn(['collie', 'run']);
      expect(run.code).toBe(3);
      const status = await loopIn(['collie', 'status']);
      expect(status.stdout).toContain('lock      held by a running controller');
    } finally {
      await lock.release();
    }
    expect(existsSync(paths.currentRun)).toBe(false);
  });

  it(
    "Ctrl-C (SIGINT) during a step exits 130 at once and kills the trigger's " +
      'process group; a later run redoes the step and ends normally',
    async () => {
      // The trigger records its process group and waits; it only finishes once `release` exists. It runs
      // unconfined: it writes outside the worktree, and its `$$` must be a host pid (bwrap has its own pid namespace).
      writeConfig(
        {
          ...GREEN,
          Q1:
            `echo $$ > ${join(root, 'trigger.pid.tmp')} && ` +
            `mv ${join(root, 'trigger.pid.tmp')} ${join(root, 'trigger.pid')}; until ` +
            `[ -f ${join(root, 'release')} ]; do sleep 0.05; done; echo "score: 1"`,
        },
        'trigger:\n  sandbox: none\n',
      );
      const env: NodeJS.ProcessEnv = { ...process.env, CI: '1' };
      delete env['COLLIE_AUTOITER_ACTIVE'];
      const child = spawn(process.execPath, [BUNDLE, 'collie', 'run'], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const pidFile = join(root, 'trigger.pid');
      await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), { timeout: 20_000, interval: 25 });
      const pgid = Number(readFileSync(pidFile, 'utf8'));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain('interrupted: the trigger and agents were stopped');
      const alive = () => {
        try {
          process.kill(-pgid, 0);
          return true;
        } catch {
          return false;
        }
      };
      await vi.waitFor(() => expect(alive()).toBe(false), { timeout: 5000, interval: 20 });
      writeFileSync(join(root, 'release'), '');
      const again = await loop(['collie', 'run']);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/ended: converged/);
    },
  );

  it(
    'an invalid config exits 2 naming file:line: field; loop collie init ' +
      'writes a starter that validates and refuses to overwrite',
    async () => {
      writeConfig(GREEN, 'worktree: maybe\n');
      const file = join(root, 'collie.config.yaml');
      const line = readFileSync(file, 'utf8').split('\n').indexOf('worktree: maybe') + 1;
      const bad = await loopIn(['collie', 'step']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`error [CONFIG_INVALID]`);
      expect(bad.stderr).toContain(`${file}:${line}: worktree: expected boolean, found "maybe"`);
      expect((await loopIn(['collie', 'status', 'missing.yaml'])).code).toBe(2);

      const init = await loopIn(['collie', 'init', 'starter.yaml']);
      expect(init.code).toBe(0);
      expect(init.stdout).toContain(`wrote ${join(root, 'starter.yaml')}`);
      expect(
        parseConfigTextOf(COLLIE_CONFIG_KIND, readFileSync(join(root, 'starter.yaml'), 'utf8'), 'starter.yaml')
          .projectId,
      ).toBe('my-app');
      expect((await loopIn(['collie', 'init', 'starter.yaml'])).code).toBe(2);
      expect((await loopIn(['collie', 'init', 'starter.yaml', '--force'])).code).toBe(0);
    },
  );
});

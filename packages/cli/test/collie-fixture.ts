// The temp git repository, the bundled CLI and the fake agent CLI shared by the `loop collie` end-to-end
// tests (collie.test.ts: runs to the end; collie-guards.test.ts: the lock, Ctrl-C, config errors).
//
// The spawned CLI is src/main.ts bundled once with esbuild (the compiler tsx and tsup use, so the
// same code as the published dist): a process then starts in ~0.5 s instead of ~2 s under tsx,
// which keeps the 13 one-step processes of a whole run fast. cli.test.ts runs src/main.ts via tsx.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { runCli } from '../src/cli.js';
import { bundleCli } from './bundled-cli.js';

let bundleDir: string;
/** The bundled CLI (loop.mjs), set before all tests of a file that calls {@link useCollieRepo}. */
export let BUNDLE: string;

/** A finished `loop` process: its exit code and output. */
export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The test's folder (collie.config.yaml, answers.json, agent.sh, state/), set before each test. */
export let root: string;
/** The git repository under `root` the run works on (`root`/project). */
export let project: string;

/** `loop <args>` as a separate process in `root`. */
export function loop(args: string[]): Promise<Result> {
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
export async function loopIn(args: string[]): Promise<Result> {
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

/** git in `cwd` with a fixed author. */
export const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

/** The fake agent CLI: discovery ranks the trigger, every other role (observe) sees no issue. */
const AGENT = `cat > /dev/null
case "$COLLIE_AGENT_ROLE" in
  discovery) echo '1. echo "score: 1" (shell, 5): prints the score' ;;
  *) echo 'NO ISSUES' ;;
esac
`;

/** Writes collie.config.yaml (stateRoot inside root) with `extra` lines, and the answers file. */
export function writeConfig(answers: Record<string, string>, extra = ''): void {
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
/** Answers of a run whose trigger prints score 1 and stops when all is green. */
export const GREEN = { Q1: 'echo "score: 1"', Q2: 'all_green', Q3: 'correctness', Q5: 'yes' };

/**
 * Registers the bundled CLI (beforeAll), a fresh `root` with a one-commit git repository and the fake
 * agent each test (beforeEach), and their removal.
 */
export function useCollieRepo(): void {
  beforeAll(async () => {
    bundleDir = mkdtempSync(join(tmpdir(), 'loop-collie-bin-'));
    BUNDLE = await bundleCli(bundleDir);
  });
  afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));
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
}

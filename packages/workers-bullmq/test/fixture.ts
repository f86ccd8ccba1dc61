import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/**
 * The evaluated program: prints `score: <params.txt>`; logs `<iteration> <pid>` to
 * $LOOP_TEST_DIR/started.log; for the iteration in $LOOP_TEST_GATE_ITERATION waits until the file
 * $LOOP_TEST_DIR/gate exists; with $LOOP_TEST_HANG hangs (with a background grandchild) forever;
 * with $LOOP_TEST_SLEEP sleeps that many seconds.
 */
const TRAIN = `#!/bin/sh
echo "$LOOP_ITERATION $$" >> "$LOOP_TEST_DIR/started.log"
if [ "$LOOP_ITERATION" = "$LOOP_TEST_GATE_ITERATION" ]; then
  while [ ! -f "$LOOP_TEST_DIR/gate" ]; do sleep 0.02; done
fi
if [ -n "$LOOP_TEST_HANG" ]; then sleep 1000 & sleep 1000; fi
if [ -n "$LOOP_TEST_SLEEP" ]; then sleep "$LOOP_TEST_SLEEP"; fi
echo "score: $(cat params.txt)"
`;

/** A coordinator workspace: a real git repository with train.sh and params.txt, and a scratch dir. */
export interface Workspace {
  readonly root: string;
  readonly scratch: string;
  /** A unique NAME=value every evaluated process carries (to find leftovers with pidsWithEnv). */
  readonly marker: string;
  /** Lines of started.log: `<iteration> <pid>` per run started. */
  started(): string[];
  openGate(): void;
  cleanup(): void;
}

export function makeWorkspace(params = '1'): Workspace {
  const base = mkdtempSync(join(tmpdir(), 'loop-workers-'));
  const root = join(base, 'repo');
  const scratch = join(base, 'scratch');
  mkdirSync(root);
  mkdirSync(scratch);
  writeFileSync(join(root, 'train.sh'), TRAIN);
  chmodSync(join(root, 'train.sh'), 0o755);
  writeFileSync(join(root, 'params.txt'), params);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', '-c', 'commit.gpgsign=false', ...args], {
      cwd: root,
      stdio: 'pipe',
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'start');
  const log = join(scratch, 'started.log');
  return {
    root,
    scratch,
    marker: `LOOP_WORKERS_TEST=${randomUUID()}`,
    started: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
    openGate: () => writeFileSync(join(scratch, 'gate'), ''),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** A `loop-worker` process (or another script of this package) started from the TypeScript sources. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Resolves with the worker id once it prints its ready line. */
  readonly ready: Promise<string>;
  /** JSON lines it printed. */
  readonly events: Array<Record<string, unknown>>;
  /** SIGKILL, waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function spawnWorker(args: string[]): WorkerProcess {
  return spawnTs(MAIN, args, 'ready');
}

/**
 * A TypeScript script of this package run as a process (tsx, source condition); `ready` resolves on its first JSON line
 * of type `readyType`.
 */
export function spawnTs(file: string, args: string[], readyType: string): WorkerProcess {
  const child = spawn(process.execPath, ['--import', TSX, '--conditions=source', file, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Array<Record<string, unknown>> = [];
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const ready = new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let at;
      while ((at = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        try {
          const event = JSON.parse(line) as Record<string, unknown>;
          events.push(event);
          if (event.type === readyType) resolve(String(event.worker ?? event.jobId ?? ''));
        } catch {
          // not a JSON line
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}: ${err}`)));
  });
  ready.catch(() => undefined);
  return {
    child,
    ready,
    events,
    kill: (signal = 'SIGKILL') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** Resolves when `check()` is true, polling every 20 ms, or rejects after `timeoutMs` naming `what`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const hasBinary = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;
const external = process.env.LOOP_REDIS_URL;

/** Why the Redis tests cannot run here: neither redis-server on PATH nor LOOP_REDIS_URL; undefined when they can. */
export function redisMissing(): string | undefined {
  return hasBinary || external
    ? undefined
    : 'neither redis-server (apt-get install -y redis-server; .ci/run installs it) nor LOOP_REDIS_URL is available';
}

/** Why a test that restarts Redis cannot run here (only a server of its own can be restarted). */
export function restartMissing(): string | undefined {
  return hasBinary
    ? undefined
    : 'redis-server is not installed, and the shared LOOP_REDIS_URL server must not be restarted';
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A real redis-server of one test: its own port and directory, no persistence. */
export interface TestRedis {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM, waits for its exit) and starts a new empty one on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out}`)));
  });
}

const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/**
 * Starts redis-server on a free port with a temporary directory; without the binary, uses
 * LOOP_REDIS_URL (then `restart` throws, `stop` does nothing). Tests use queue names of their own
 * ({@link uniqueQueue}) so a shared server never mixes their jobs.
 */
export async function startRedis(): Promise<TestRedis> {
  if (!hasBinary && external) {
    return {
      url: external,
      port: Number(new URL(external).port || 6379),
      restart: () => Promise.reject(new Error('the shared LOOP_REDIS_URL server is not restarted by tests')),
      stop: () => Promise.resolve(),
    };
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'loop-redis-'));
  let child = await launch(port, dir);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    restart: async () => {
      await stopChild(child);
      child = await launch(port, dir);
    },
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `base` plus a random suffix: a queue no other test run uses. */
export function uniqueQueue(base: string): string {
  return `${base}-${Math.random().toString(36).slice(2, 10)}`;
}

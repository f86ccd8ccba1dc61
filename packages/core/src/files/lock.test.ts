import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock, isLocked } from './lock.js';
import { processStartTicks, processState } from '../process/process-state.js';

const linux = process.platform === 'linux';
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'loop-lock-'));
  dirs.push(dir);
  return dir;
}

/**
 * Makes a zombie nobody reaps: `sh` backgrounds `head`, which waits on fd 3, then execs `sleep`
 * (which never calls wait). Once `sh` has become `sleep`, closing fd 3 ends `head`: a zombie.
 */
async function zombiePid(): Promise<number> {
  const child = spawn('sh', ['-c', 'head -c1 <&3 >/dev/null & echo $!; exec sleep 600'], {
    stdio: ['ignore', 'pipe', 'ignore', 'pipe'],
  });
  children.push(child);
  const pid = await new Promise<number>((resolve) =>
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
  );
  const comm = () => {
    try {
      return readFileSync(`/proc/${child.pid}/comm`, 'utf8').trim();
    } catch {
      return '';
    }
  };
  while (comm() !== 'sleep') await new Promise((resolve) => setImmediate(resolve));
  (child.stdio[3] as NodeJS.WritableStream).end();
  while (processState(pid) !== 'zombie') await new Promise((resolve) => setImmediate(resolve));
  return pid;
}

/** Writes a lock directory as proper-lockfile would, owned by `owner`. */
function fakeHeldLock(path: string, owner: Record<string, unknown>): void {
  rmSync(`${path}.lock`, { recursive: true, force: true });
  mkdirSync(`${path}.lock`);
  writeFileSync(`${path}.lock.owner.json`, JSON.stringify({ hostname: hostname(), ...owner }));
}

describe('acquireLock', () => {
  it('refuses a second holder while the first is alive, with LOCK_HELD naming the lock', async () => {
    const path = join(tempDir(), 'state.json');
    const lock = await acquireLock({ path });
    await expect(acquireLock({ path })).rejects.toMatchObject({ code: 'LOCK_HELD', details: { path: `${path}.lock` } });
    await lock.release();
    const again = await acquireLock({ path });
    await again.release();
  });

  it('records pid, hostname and the process start time of the holder', async () => {
    const path = join(tempDir(), 'state.json');
    const lock = await acquireLock({ path });
    const owner = JSON.parse(readFileSync(`${path}.lock.owner.json`, 'utf8')) as Record<string, unknown>;
    expect(owner).toMatchObject({ pid: process.pid, hostname: hostname() });
    if (linux) expect(owner.startTicks).toBe(processStartTicks(process.pid));
    await lock.release();
  });

  it.skipIf(!linux)('takes over at once a lock whose owner is a zombie (kill(pid, 0) succeeds on it)', async () => {
    const pid = await zombiePid();
    expect(() => process.kill(pid, 0)).not.toThrow();
    const path = join(tempDir(), 'state.json');
    fakeHeldLock(path, { pid });
    expect(await isLocked(path)).toBe(false);
    const lock = await acquireLock({ path });
    await lock.release();
  });

  it.skipIf(!linux)(
    'takes over at once a lock whose pid was reused by another process (start time differs)',
    async () => {
      const child = spawn('sleep', ['600'], { stdio: 'ignore' });
      children.push(child);
      const pid = child.pid!;
      const path = join(tempDir(), 'state.json');
      fakeHeldLock(path, { pid, startTicks: processStartTicks(pid)! - 1 });
      expect(await isLocked(path)).toBe(false);
      fakeHeldLock(path, { pid, startTicks: processStartTicks(pid) });
      expect(await isLocked(path)).toBe(true);
      await expect(acquireLock({ path })).rejects.toMatchObject({ code: 'LOCK_HELD' });
    },
  );
});

import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileArtifact } from '../src/index.js';
import { acquireLock, isLocked, readJson, writeJsonAtomic } from '../src/files.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-state-'));
});
afterEach(async () => {
  await chmod(dir, 0o755).catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

describe('state.json atomic write', () => {
  it('replaces the file whole and leaves no temp file behind', async () => {
    const path = join(dir, 'state.json');
    await writeJsonAtomic(path, { iteration: 1 });
    await writeJsonAtomic(path, { iteration: 2 });
    expect(await readJson(path)).toEqual({ iteration: 2 });
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('a failed write is STATE_WRITE_FAILED and the previous file survives', async () => {
    if (process.getuid?.() === 0) {
      // root ignores directory permissions: make the target a directory instead.
      const path = join(dir, 'state.json');
      await mkdir(path);
      await writeFile(join(path, 'x'), '');
      await expect(writeJsonAtomic(path, { a: 1 })).rejects.toMatchObject({ code: 'STATE_WRITE_FAILED' });
      return;
    }
    const path = join(dir, 'state.json');
    await writeJsonAtomic(path, { iteration: 1 });
    await chmod(dir, 0o555);
    await expect(writeJsonAtomic(path, { iteration: 2 })).rejects.toMatchObject({ code: 'STATE_WRITE_FAILED' });
    expect(await readJson(path)).toEqual({ iteration: 1 });
  });

  it('reading invalid JSON is STATE_CORRUPT naming the file', async () => {
    await writeFile(join(dir, 'state.json'), '{"half": ');
    await expect(readJson(join(dir, 'state.json'))).rejects.toMatchObject({
      code: 'STATE_CORRUPT',
      message: expect.stringContaining('state.json'),
    });
  });
});

describe('workspace lock', () => {
  it('a second loop on the same workspace gets LOCK_HELD naming the lock', async () => {
    const lock = await acquireLock({ path: join(dir, '.loop', 'workspace') });
    await expect(acquireLock({ path: join(dir, '.loop', 'workspace') })).rejects.toMatchObject({
      code: 'LOCK_HELD',
      message: expect.stringContaining('workspace.lock'),
    });
    expect(await isLocked(join(dir, '.loop', 'workspace'))).toBe(true);
    await lock.release();
    expect(await isLocked(join(dir, '.loop', 'workspace'))).toBe(false);
  });

  it(
    'a lock whose owner process was killed (SIGKILL) is taken over at once, ' + 'without waiting for it to go stale',
    async () => {
      const path = join(dir, '.loop', 'workspace');
      const script =
        `import('${pathToFileURL(join(import.meta.dirname, '..', 'src', 'files', 'lock.ts')).href}').then(async ` +
        `(m) => { await m.acquireLock({ path: ${JSON.stringify(path)}, staleMs: ` +
        `600000 }); process.stdout.write('held\\n'); setInterval(() => {}, 1000); ` +
        `});`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve) =>
        child.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve()),
      );
      await expect(acquireLock({ path, staleMs: 600_000 })).rejects.toMatchObject({ code: 'LOCK_HELD' });
      expect(await isLocked(path, 600_000)).toBe(true);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      expect(await isLocked(path, 600_000)).toBe(false); // its owner is dead: status tools report it free
      const lock = await acquireLock({ path, staleMs: 600_000 });
      expect(JSON.parse(await readFile(`${lock.path}.owner.json`, 'utf8'))).toMatchObject({ pid: process.pid });
      await lock.release();
    },
  );
});

describe('file artifact', () => {
  it('sees edits to mutable files and flags read-only ones, including the executable bit', async () => {
    await writeFile(join(dir, 'train.mjs'), 'a');
    await writeFile(join(dir, 'prepare.mjs'), 'b');
    const artifact = createFileArtifact({ root: dir, mutable: ['train.mjs'], readOnly: ['prepare.mjs'] });
    const before = await artifact.inspect();
    await writeFile(join(dir, 'train.mjs'), 'a2');
    await chmod(join(dir, 'prepare.mjs'), 0o755);
    const after = await artifact.inspect();
    const { compareSnapshots } = await import('../src/artifacts.js');
    expect(compareSnapshots(artifact, before, after)).toEqual({
      changed: ['prepare.mjs', 'train.mjs'],
      violations: ['prepare.mjs'],
    });
    expect(await readFile(join(dir, 'train.mjs'), 'utf8')).toBe('a2');
  });

  it('a path outside the root is CONFIG_INVALID', () => {
    expect(() => createFileArtifact({ root: dir, mutable: ['../x'] })).toThrow(
      /mutable\.0: must be a path relative to root/,
    );
  });
});

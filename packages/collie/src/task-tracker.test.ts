import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopError } from '@loop/core';
import { startIterationAnchors } from './task-anchors.js';
import { createFileTaskTracker, createMemoryTaskTracker } from './task-tracker.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'collie-tasks-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('task trackers', () => {
  it('file tracker: ids T1, T2, ... and a new instance on the same path sees the same tasks', async () => {
    const path = join(dir, 'nested', 'tasks.json');
    const a = createFileTaskTracker(path);
    expect(await a.list()).toEqual([]);
    const [t1, t2] = await Promise.all([a.create('one'), a.create('two')]);
    expect([t1.id, t2.id]).toEqual(['T1', 'T2']);
    await a.update('T2', 'completed');
    expect(await createFileTaskTracker(path).list()).toEqual([
      { id: 'T1', subject: 'one', status: 'pending' },
      { id: 'T2', subject: 'two', status: 'completed' },
    ]);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ version: 1, nextId: 3 });
  });

  it('update of an unknown id throws STATE_CORRUPT (file and memory trackers)', async () => {
    const file = createFileTaskTracker(join(dir, 'tasks.json'));
    await expect(file.update('T9', 'completed')).rejects.toSatisfy(
      (e: unknown) => isLoopError(e, 'STATE_CORRUPT') && e.message.includes('T9'),
    );
    expect(() => createMemoryTaskTracker().update('T1', 'completed')).toThrow(
      expect.objectContaining({ code: 'STATE_CORRUPT' }),
    );
  });

  it('a malformed task file throws STATE_CORRUPT naming the file and the field', async () => {
    const path = join(dir, 'tasks.json');
    await writeFile(
      path,
      JSON.stringify({ version: 1, nextId: 2, tasks: [{ id: 'T1', subject: 'x', status: 'done' }] }),
    );
    const err = await Promise.resolve()
      .then(() => createFileTaskTracker(path).list())
      .catch((e: unknown) => e);
    expect(isLoopError(err, 'STATE_CORRUPT')).toBe(true);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toContain('tasks.0.status');
  });

  it('a task file that is not JSON throws STATE_CORRUPT naming the file', async () => {
    const path = join(dir, 'tasks.json');
    await writeFile(path, '{ not json');
    await expect(
      startIterationAnchors(createFileTaskTracker(path), 1, { previousRolledBack: false }),
    ).rejects.toSatisfy((e: unknown) => isLoopError(e, 'STATE_CORRUPT') && e.message.includes(path));
  });
});

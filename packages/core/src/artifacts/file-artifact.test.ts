import nodeFs, { chmodSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileArtifact } from '../index.js';

// Counts reads, passing every call through to the real readFile.
vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof import('node:fs/promises')>();
  return { ...real, readFile: vi.fn(real.readFile) };
});

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loop-file-artifact-'));
});
afterEach(() => {
  vi.mocked(readFile).mockClear();
  rmSync(root, { recursive: true, force: true });
});

/** A clock a minute ahead of the file system's: every file looks old enough to trust its hash. */
const later = () => Date.now() + 60_000;

describe('file artifact stat cache (issue 13: an inspection reads only files whose stat data changed)', () => {
  it(
    'an edit in place is seen even when the mtime is put back (the ctime ' + 'moved), and so is a mode change',
    async () => {
      writeFileSync(join(root, 'a.txt'), 'one\n');
      const artifact = createFileArtifact({ root, mutable: ['a.txt'], now: later });
      const first = await artifact.inspect();
      const before = nodeFs.lstatSync(join(root, 'a.txt'));
      writeFileSync(join(root, 'a.txt'), 'two\n'); // same size
      utimesSync(join(root, 'a.txt'), before.atime, before.mtime);
      const second = await artifact.inspect();
      expect(second['a.txt']).not.toBe(first['a.txt']);
      chmodSync(join(root, 'a.txt'), 0o755);
      expect((await artifact.inspect())['a.txt']).toMatch(/^x/);
    },
  );

  it('a file with unchanged stat data is not read again; a racy one (times within 50 ms of hashing) is', async () => {
    writeFileSync(join(root, 'a.txt'), 'one\n');
    vi.mocked(readFile).mockClear();
    const trusted = createFileArtifact({ root, mutable: ['a.txt'], now: later });
    const a = await trusted.inspect();
    const b = await trusted.inspect();
    expect(b).toEqual(a);
    const mtime = nodeFs.lstatSync(join(root, 'a.txt')).mtimeMs;
    const racy = createFileArtifact({ root, mutable: ['a.txt'], now: () => mtime + 10 });
    await racy.inspect();
    await racy.inspect();
    // 1 trusted + 2 racy
    expect(vi.mocked(readFile).mock.calls.filter(([p]) => String(p).endsWith('a.txt'))).toHaveLength(3);
  });
});

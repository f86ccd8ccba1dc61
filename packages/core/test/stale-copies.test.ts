import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFunctionHarness } from '../src/index.js';
import { createDirectoryWorkingCopies } from '../src/artifacts.js';
import { copyOwner } from '../src/artifacts/stale-copies.js';

describe('working copies a killed run left behind', () => {
  let base: string;
  let root: string;
  let temp: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'loop-stale-'));
    root = join(base, 'workspace');
    temp = join(base, 'copies');
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'train.txt'), '10');
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it(
    "the first copy removes this workspace's copies whose process is gone, " +
      "never a live process's or another workspace's",
    async () => {
      // A process that has exited: its pid is free (a kill -9 leaves the same state).
      const dead = spawnSync(process.execPath, ['-e', '']).pid!;
      const leftovers = {
        killed: `loop-copy-3.0-${copyOwner(root, dead)}-abc123`,
        live: `loop-copy-4.1-${copyOwner(root, process.ppid)}-def456`,
        otherWorkspace: `loop-copy-3.0-${copyOwner(join(base, 'other'), dead)}-ghi789`,
        notACopy: 'notes',
      };
      for (const name of Object.values(leftovers)) {
        await mkdir(join(temp, name), { recursive: true });
        await writeFile(join(temp, name, 'train.txt'), 'old');
      }
      const provider = createDirectoryWorkingCopies({
        root,
        mutable: ['train.txt'],
        tempDir: temp,
        harness: () => createFunctionHarness('x', () => 1),
      });
      const copy = await provider.create(5, 0);
      const names = await readdir(temp);
      expect(names).not.toContain(leftovers.killed);
      expect(names).toEqual(
        expect.arrayContaining([
          leftovers.live,
          leftovers.otherWorkspace,
          leftovers.notACopy,
          copy.dir!.split('/').at(-1),
        ]),
      );
      expect(copy.dir).toContain(`loop-copy-5.0-${copyOwner(root)}-`);
      await copy.dispose!();
    },
  );
});

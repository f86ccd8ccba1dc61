import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyFilePatch, patchDigest, readFilePatch } from './file-patch.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'loop-patch-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('file patch', () => {
  it(
    'applied on another copy, the mutable paths become byte-equal (modes, ' +
      'symlinks, a deleted file gone); the rest is untouched',
    async () => {
      const from = tmp();
      const to = tmp();
      mkdirSync(join(from, 'skill/sub'), { recursive: true });
      writeFileSync(join(from, 'train.py'), 'lr = 3\n');
      writeFileSync(join(from, 'skill/sub/run.sh'), '#!/bin/sh\n');
      chmodSync(join(from, 'skill/sub/run.sh'), 0o755);
      symlinkSync('sub/run.sh', join(from, 'skill/link'));
      mkdirSync(join(to, 'skill'), { recursive: true });
      writeFileSync(join(to, 'train.py'), 'lr = 1\n');
      writeFileSync(join(to, 'skill/old.md'), 'deleted by the candidate\n');
      writeFileSync(join(to, 'prepare.py'), 'fixed\n');
      const patch = await readFilePatch(from, ['train.py', 'skill']);
      await applyFilePatch(to, patch);
      expect(readFileSync(join(to, 'train.py'), 'utf8')).toBe('lr = 3\n');
      expect(lstatSync(join(to, 'skill/sub/run.sh')).mode & 0o777).toBe(0o755);
      expect(readlinkSync(join(to, 'skill/link'))).toBe('sub/run.sh');
      expect(existsSync(join(to, 'skill/old.md'))).toBe(false);
      expect(readFileSync(join(to, 'prepare.py'), 'utf8')).toBe('fixed\n');
      expect(patchDigest(await readFilePatch(to, ['train.py', 'skill']))).toBe(patchDigest(patch));
    },
  );

  it('a patch file outside its mutable paths, or leaving the copy, is refused', async () => {
    const to = tmp();
    await expect(
      applyFilePatch(to, { mutable: ['train.py'], files: [{ path: 'prepare.py', mode: 0o644, data: '' }] }),
    ).rejects.toThrow(/outside its mutable paths/);
    await expect(applyFilePatch(to, { mutable: ['../x'], files: [] })).rejects.toThrow(/leaves the working copy/);
  });
});

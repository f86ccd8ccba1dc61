import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findBlobs, gitBlobId } from './find-blobs.js';

let root: string;
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: join(root, 'ws'),
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  }).toString();
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loop-find-blobs-'));
  execFileSync('git', ['init', '-q', join(root, 'ws')]);
  writeFileSync(join(root, 'ws', 'a.txt'), 'visible\n');
  git('add', 'a.txt');
  git('commit', '-qm', 'a');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("finding a file's bytes among a repository's objects (sealed holdout, issue 33)", () => {
  it("gitBlobId is git hash-object's id", () => {
    writeFileSync(join(root, 'x'), 'hello\n');
    expect(gitBlobId(Buffer.from('hello\n'))).toBe(
      execFileSync('git', ['hash-object', join(root, 'x')])
        .toString()
        .trim(),
    );
  });

  it(
    'finds a file whose copy was committed and then deleted, and one only ' + 'staged once, but not one never added',
    async () => {
      writeFileSync(join(root, 'committed.txt'), 'test split 1\n');
      writeFileSync(join(root, 'staged.txt'), 'test split 2\n');
      writeFileSync(join(root, 'never.txt'), 'test split 3\n');
      writeFileSync(join(root, 'ws', 'copy.txt'), 'test split 1\n');
      git('add', 'copy.txt');
      git('commit', '-qm', 'leak');
      git('rm', '-q', 'copy.txt');
      git('commit', '-qm', 'unleak');
      writeFileSync(join(root, 'ws', 'tmp.txt'), 'test split 2\n');
      git('add', 'tmp.txt');
      git('rm', '-q', '--cached', 'tmp.txt');
      const files = ['committed.txt', 'staged.txt', 'never.txt'].map((f) => join(root, f));
      expect(await findBlobs({ cwd: join(root, 'ws') }, files)).toEqual(files.slice(0, 2));
    },
  );
});

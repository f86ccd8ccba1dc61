import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInGroupToLog } from './process-group.js';
import { sandboxMaskArgs } from './sandbox.js';
import { bwrapStatus } from './bwrap-status.js';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'loop-sandbox-hidden-')));
  mkdirSync(join(root, 'ws'));
  mkdirSync(join(root, 'sealed', 'inner'), { recursive: true });
  writeFileSync(join(root, 'sealed', 'test.txt'), 'SECRET\n');
  writeFileSync(join(root, 'sealed', 'inner', 'b.txt'), 'SECRET\n');
  writeFileSync(join(root, 'scores.jsonl'), 'SECRET\n');
  symlinkSync(join(root, 'sealed'), join(root, 'ws', 'link'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('masking hidden paths in the sandbox (issue 33)', () => {
  it(
    'a folder becomes a tmpfs, a file /dev/null; a symlink is masked at its ' +
      'real path; inner paths and missing ones add nothing',
    () => {
      expect(
        sandboxMaskArgs([
          join(root, 'sealed', 'inner'),
          join(root, 'ws', 'link'),
          join(root, 'scores.jsonl'),
          join(root, 'missing'),
        ]),
      ).toEqual(['--tmpfs', join(root, 'sealed'), '--ro-bind', '/dev/null', join(root, 'scores.jsonl')]);
    },
  );

  const bwrap = bwrapStatus();
  it.skipIf(!bwrap.available)(
    `inside bwrap the hidden paths read empty by every name: direct, ` +
      `symlink, ../, /proc/self/root, /proc/1/root, even under a writable ` +
      `parent${bwrap.available ? '' : ` — skipped: ${bwrap.reason}`}`,
    async () => {
      const logPath = join(root, 'out.log');
      const names = [
        `${root}/sealed/test.txt`,
        'link/test.txt',
        '../sealed/inner/b.txt',
        `/proc/self/root${root}/sealed/test.txt`,
        `/proc/1/root${root}/scores.jsonl`,
        `${root}/scores.jsonl`,
      ];
      const command =
        `${names.map((n) => `cat ${n} 2>/dev/null`).join('; ')}; grep -rs ` +
        `SECRET ${root} --exclude=out.log; echo done`;
      const run = (hidden: string[]) =>
        runInGroupToLog({
          logPath,
          command,
          cwd: join(root, 'ws'),
          env: process.env,
          killTimeoutMs: 30_000,
          graceMs: 1000,
          sandbox: { writable: [join(root, 'ws')], extraWritable: [root], hidden },
        }).then(() => readFileSync(logPath, 'utf8'));
      const open = await run([]);
      // without the mask every name reads it
      expect(open.match(/SECRET/g)?.length).toBeGreaterThanOrEqual(names.length);
      expect(await run([join(root, 'sealed'), join(root, 'scores.jsonl')])).toBe('done\n');
    },
  );
});

import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInGroupToLog } from './process-group.js';
import { bwrapStatus } from './bwrap-status.js';

// Two top-level /tmp folders: the workspace's, and one apart (the ML demo's `<out>.holdout` beside `--out /tmp/run`).
let home: string;
let apart: string;
beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'loop-sandbox-readable-')));
  apart = realpathSync(mkdtempSync(join(tmpdir(), 'loop-sandbox-apart-')));
  mkdirSync(join(home, 'ws'));
  writeFileSync(join(apart, 'names.txt'), 'APART-CONTENT\n');
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(apart, { recursive: true, force: true });
});

describe('readable paths outside the workspace in the sandbox', () => {
  const bwrap = bwrapStatus();
  it.skipIf(!bwrap.available)(
    'a readable path in another /tmp folder is read inside bwrap (the private /tmp hid it) and stays ' +
      `read-only${bwrap.available ? '' : ` — skipped: ${bwrap.reason}`}`,
    async () => {
      const logPath = join(home, 'out.log');
      const run = (readable: string[]) =>
        runInGroupToLog({
          logPath,
          command: `cat ${apart}/names.txt; echo x > ${apart}/new.txt; echo done`,
          cwd: join(home, 'ws'),
          env: process.env,
          killTimeoutMs: 30_000,
          graceMs: 1000,
          sandbox: { writable: [join(home, 'ws')], ...(readable.length > 0 ? { readable } : {}) },
        }).then(() => readFileSync(logPath, 'utf8'));
      expect(await run([])).not.toContain('APART-CONTENT');
      const out = await run([join(apart, 'names.txt')]);
      expect(out).toContain('APART-CONTENT');
      expect(out).toContain('done');
      expect(existsSync(join(apart, 'new.txt'))).toBe(false);
    },
  );
});

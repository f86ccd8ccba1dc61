// Issue 32 item 14: what `loop run` and `loop status` print where the output is not a normal
// terminal; in-process on a real git repository with real processes.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/cli.js';
import { createMutatorWorkspace } from './fixtures/mutator-workspace.js';
import { runCliCaptured } from './fixtures/run-cli.js';

let ws: string;

beforeEach(async () => {
  ws = await createMutatorWorkspace('loop-output-', { maxIterations: 2 });
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(ws, { recursive: true, force: true });
});

describe('loop run output off a normal terminal (issue 32 item 14)', () => {
  it(
    'on a TTY of size 0 (columns 0, rows 0) each iteration is printed as it ' +
      'finishes, with a progress line, not only the summary at the end',
    async () => {
      vi.stubEnv('CI', '');
      const chunks: string[] = [];
      const stdout = Object.assign(new Writable({ write: (c, _e, done) => (chunks.push(String(c)), done()) }), {
        isTTY: true,
        columns: 0,
        rows: 0,
      });
      const stderr = new Writable({ write: (_c, _e, done) => done() });
      const code = await runCli(['run'], { stdout, stderr, cwd: ws, fromClone: false });
      expect(code).toBe(0);
      const out = chunks.join('');
      const summary = out.indexOf('stopped: max-iterations');
      expect(summary).toBeGreaterThan(0);
      expect(out.slice(0, summary)).toMatch(/^iter {3}0 {2}keep/m);
      expect(out.slice(0, summary)).toMatch(/^iter {3}2 /m);
      expect(out.slice(0, summary)).toMatch(
        /^progress  iteration 2 of 2 \| elapsed \S+ \| ~\S+ left \| best score \S+ \| keep \d discard \d crash \d$/m,
      );
    },
    60_000,
  );

  it('piped (nohup): a progress line with elapsed, time left and best after every iteration', async () => {
    const run = await runCliCaptured(ws, ['run']);
    expect(run.code).toBe(0);
    expect(run.out.split('\n').filter((l) => l.startsWith('progress  iteration '))).toHaveLength(3); // baseline + 2
  }, 60_000);
});

describe('loop status on a folder that does not exist (issue 32 item 14)', () => {
  it('says the path does not exist and exits non-zero, instead of "no run here yet" and 0', async () => {
    const status = await runCliCaptured(ws, ['status', join(ws, 'no-such-folder')]);
    expect(status.code).toBe(2);
    expect(status.err).toContain(`${join(ws, 'no-such-folder')} does not exist`);
    expect(status.out).not.toContain('no run here yet');
  });
});

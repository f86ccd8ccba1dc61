// Issue 32 item 14: after a clean Ctrl-C, `npx pnpm ... loop run` printed `[ELIFECYCLE] Command
// failed`: loop exited 130, and the `sh -c` pnpm runs the root `loop` script in turned even a
// clean exit into 130 (dash exits 130 when it got SIGINT while waiting for its child). The root
// script is run here as pnpm runs it, and the whole process group gets SIGINT, as from a terminal.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMutatorWorkspace, gitIn } from './fixtures/mutator-workspace.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts.loop!;

let ws: string;
beforeEach(async () => {
  ws = await createMutatorWorkspace('loop-ctrl-c-', { maxIterations: 0 });
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('a clean Ctrl-C through the root loop script (issue 32 item 14)', () => {
  it(
    'Ctrl-C once (SIGINT to the whole process group) stops at the last kept ' +
      'state and the script exits 0, so pnpm reports no failure',
    async () => {
      const child = spawn('/bin/sh', ['-c', `${SCRIPT} run ${join(ws, 'loop.config.yaml')}`], {
        cwd: ROOT,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, CI: '1' },
      });
      let out = '';
      let err = '';
      let sent = false;
      child.stdout.on('data', (d: Buffer) => {
        out += String(d);
        if (!sent && /^iter {3}2 /m.test(out)) {
          sent = true;
          process.kill(-child.pid!, 'SIGINT');
        }
      });
      child.stderr.on('data', (d: Buffer) => (err += String(d)));
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      expect(sent).toBe(true);
      expect(err).toBe('');
      expect(out).toContain('stopped: aborted');
      expect(code).toBe(0);
      expect(gitIn(ws, 'status', '--porcelain')).toBe('');
    },
    120_000,
  );
});

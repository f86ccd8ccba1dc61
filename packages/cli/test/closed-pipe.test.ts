import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/**
 * Runs `loop --help` and closes its stdout after the first chunk, as `| head -1` does; returns its stderr and exit
 * code.
 */
function helpIntoClosedPipe(): Promise<{ stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', TSX, '--conditions=source', MAIN, '--help'], {
      env: { ...process.env, CI: '1' },
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('close', (code) => resolve({ stderr, code }));
  });
}

describe('a reader that stops early', () => {
  it(
    'loop --help into a pipe closed after its first chunk (| head -1) ends ' +
      'without an EPIPE stack trace (fresh-user trial, issue 32)',
    async () => {
      for (let i = 0; i < 4; i++) {
        const { stderr } = await helpIntoClosedPipe();
        expect(stderr).not.toMatch(/EPIPE|Unhandled|at .*\(/);
      }
    },
  );
});

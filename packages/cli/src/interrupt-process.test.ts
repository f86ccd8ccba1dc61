import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const CHILD = fileURLToPath(new URL('../test/fixtures/interrupt-child.ts', import.meta.url));

describe('Ctrl-C in a real process (issue 12: the second Ctrl-C exited while a ref write was pending)', () => {
  it(
    'Ctrl-C three times while a rollback write is in flight: the process ' +
      'exits 130 only after the write has landed, never leaving the file empty',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'loop-interrupt-'));
      try {
        const child = spawn(process.execPath, ['--import', TSX, '--conditions=source', CHILD, dir], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let sent = 0;
        let releasedAt = -1;
        const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
        child.stdout.on('data', (d: Buffer) => {
          out += String(d);
          // One signal per handled step (two signals sent at once can merge into one).
          if (sent === 0 && out.includes('writing\n')) ((sent = 1), child.kill('SIGINT'));
          else if (sent === 1 && out.includes('interrupt: stopping after restoring'))
            ((sent = 2), child.kill('SIGINT'));
          else if (sent === 2 && out.includes('interrupt: stopping the running command now'))
            ((sent = 3), child.kill('SIGINT'));
          else if (
            sent === 3 &&
            releasedAt < 0 &&
            out.includes('interrupt: waiting for the git write in flight to land before exiting')
          ) {
            releasedAt = out.length;
            expect(readFileSync(join(dir, 'ref'), 'utf8')).toBe(''); // still in flight: it would be torn by an exit now
            writeFileSync(join(dir, 'release'), '');
          }
        });
        const code = await exited;
        expect(code).toBe(130);
        expect(releasedAt).toBeGreaterThan(0);
        expect(out.slice(releasedAt)).toContain('write landed');
        expect(readFileSync(join(dir, 'ref'), 'utf8')).toBe(`${'a'.repeat(40)}\n`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

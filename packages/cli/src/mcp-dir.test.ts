import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

describe('loop mcp --dir', () => {
  it(
    'a folder that does not exist is a usage error (exit 2) naming it, ' +
      'before any server starts (second fresh-user trial)',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'loop-mcp-dir-'));
      try {
        const out: string[] = [];
        const sink = { write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WritableStream;
        const code = await runCli(['mcp', '--dir', 'no-such-workspace'], {
          stdout: sink,
          stderr: sink,
          cwd: root,
          tty: false,
          fromClone: false,
        });
        expect(code).toBe(2);
        expect(out.join('')).toContain(`--dir ${join(root, 'no-such-workspace')} is not a folder`);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});

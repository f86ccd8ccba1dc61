import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dateTag } from '@loop/auto-iterate';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { starterConfig } from './init.js';
import { parseConfigText } from './load-config.js';
import { defaultTag } from './run.js';

async function init(cwd: string, ...args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const sink = { write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WritableStream;
  const code = await runCli(['init', ...args], { stdout: sink, stderr: sink, cwd, tty: false });
  return { code, out: out.join('') };
}

describe('loop init', () => {
  it('the closing hint names both forms: "loop run" (installed) and "npx -y pnpm@12.4.2 loop run <absolute file>" (from a clone)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'loop-init-'));
    try {
      const first = await init(cwd);
      expect(first.code).toBe(0);
      expect(first.out).toContain('  loop run    (with @loop/cli installed)');
      expect(first.out).toContain(`  npx -y pnpm@12.4.2 loop run ${join(cwd, 'loop.config.yaml')}    (from a clone of the loop repository)`);
      const named = await init(cwd, 'other.yaml');
      expect(named.out).toContain('  loop run other.yaml    (with @loop/cli installed)');
      expect(named.out).toContain(`  npx -y pnpm@12.4.2 loop run ${join(cwd, 'other.yaml')}    (from a clone`);
      expect(readFileSync(join(cwd, 'other.yaml'), 'utf8')).toBe(starterConfig());
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('the starter config\'s tag comment shows the default tag loop run uses (UTC date and time, e.g. mar21-143005)', () => {
    const now = Date.UTC(2026, 2, 21, 14, 30, 5);
    expect(dateTag(now)).toBe('mar21');
    expect(defaultTag(now)).toBe('mar21-143005');
    const text = starterConfig();
    expect(text).toContain(`# The run branch is auto-iterate/<tag>. Default: the UTC date and time of the run, e.g. ${defaultTag(now)}.`);
    expect(text).not.toMatch(/today's date, e\.g\. mar21\./);
    expect(parseConfigText(text, 'loop.config.yaml').tag).toBeUndefined();
  });
});

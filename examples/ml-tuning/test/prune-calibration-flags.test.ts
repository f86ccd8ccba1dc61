// The calibration script's command line (issue 27): help on request, and bad input refused with the
// usage before anything trains (exit 2), as its header promises.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const SCRIPT = fileURLToPath(new URL('../bench/prune-calibration.ts', import.meta.url));
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', TSX, '--conditions=source', SCRIPT, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });

describe('prune-calibration.ts flags', () => {
  it('--help prints the usage with every flag and its default, and exits 0', () => {
    const r = run('--help');
    expect(r.status).toBe(0);
    for (const flag of ['--seeds A-B', '--iterations N', '--steps N', '--parallel K', '--out DIR', '--from DIR'])
      expect(r.stdout).toContain(flag);
    expect(r.stdout).toContain('default 6-10');
  });

  it('an unknown flag, a bad count or a backwards seed range exits 2 with a message', () => {
    const unknown = run('--warmup', '3');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown option '--warmup'[\s\S]*usage:/);
    const count = run('--steps', '0');
    expect(count.status).toBe(2);
    expect(count.stderr).toContain('--steps must be a whole number of at least 1, got "0"');
    const range = run('--seeds', '9-6');
    expect(range.status).toBe(2);
    expect(range.stderr).toContain('--seeds must be a seed or a range like 6-10');
  });
});

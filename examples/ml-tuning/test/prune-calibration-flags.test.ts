// The calibration script's command line (issue 27): help on request, and bad input refused with the
// usage before anything trains (exit 2), as its header promises.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('an unknown flag, a bad count, a backwards or a huge seed range exits 2 with a message', () => {
    const unknown = run('--warmup', '3');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown option '--warmup'[\s\S]*usage:/);
    const count = run('--steps', '0');
    expect(count.status).toBe(2);
    expect(count.stderr).toContain('--steps must be a whole number of at least 1, got "0"');
    const range = run('--seeds', '9-6');
    expect(range.status).toBe(2);
    expect(range.stderr).toContain('--seeds must be a seed or a range like 6-10');
    const huge = run('--seeds', '1-2000000000', '--from', tmpdir());
    expect(huge.status).toBe(2);
    expect(huge.stderr).toContain('--seeds 1-2000000000 is more than 1000 seeds');
  });

  it('--from refuses a run made with pruning or on the async schedule: no whole curves or batches to replay', () => {
    const from = mkdtempSync(join(tmpdir(), 'loop-prune-cal-from-'));
    try {
      const make = (config: object) => {
        mkdirSync(join(from, 'A-1', '.loop'), { recursive: true });
        writeFileSync(join(from, 'A-1', 'results.tsv'), 'commit\tscore\tstatus\tdescription\n');
        writeFileSync(join(from, 'A-1', '.loop', 'demo.json'), JSON.stringify({ steps: 600, parallel: 2 }));
        writeFileSync(join(from, 'A-1', '.loop', 'loop.config.json'), JSON.stringify(config));
      };
      make({ prune: { enabled: true }, parallel: { schedule: 'batch' } });
      const pruned = run('--from', from, '--seeds', '1-1');
      expect(pruned.status).toBe(2);
      expect(pruned.stderr).toContain('A-1 ran with pruning on');
      make({ prune: { enabled: false }, parallel: { schedule: 'async' } });
      const async = run('--from', from, '--seeds', '1-1');
      expect(async.status).toBe(2);
      expect(async.stderr).toContain('A-1 ran on the async schedule');
      // Flags --from ignores are said to be ignored, not refused: the run's refusal is what is reported.
      const ignored = run('--from', from, '--seeds', '1-1', '--iterations', '0');
      expect(ignored.stdout).toContain('(--from: --iterations ignored');
      expect(ignored.stderr).not.toContain('--iterations must be');
      expect(ignored.stderr).toContain('A-1 ran on the async schedule');
    } finally {
      rmSync(from, { recursive: true, force: true });
    }
  });
});

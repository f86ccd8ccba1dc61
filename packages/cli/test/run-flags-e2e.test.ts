// `loop run` with flags overriding the config, in-process on a real git repository.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMutatorWorkspace, gitIn } from './fixtures/mutator-workspace.js';
import { runCliCaptured } from './fixtures/run-cli.js';

let ws: string;
const git = (...args: string[]) => gitIn(ws, ...args);
const loop = (...args: string[]) => runCliCaptured(ws, args);

beforeEach(async () => {
  ws = await createMutatorWorkspace('loop-flags-');
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('loop run flags (end to end)', () => {
  it(
    '--max-iterations=2 and --keep min-delta --min-delta 1000 override the ' +
      'file: 2 iterations, nothing clears the delta, so nothing is kept',
    async () => {
      const run = await loop('run', '--max-iterations=2', '--keep', 'min-delta', '--min-delta', '1000');
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expect(run.out).toContain('stopped: max-iterations (reached 2 iterations)');
      const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(rows).toHaveLength(3);
      expect(rows.slice(1).every((r) => r.status !== 'kept')).toBe(true);
      // the file is not changed
      expect(readFileSync(join(ws, 'loop.config.yaml'), 'utf8')).toContain('maxIterations: 20');
    },
  );

  it(
    '--keep noise-aware runs the baseline minSamples (4) times to measure ' +
      "the noise, where strict runs it once (core's noise-aware policy through " +
      'the config)',
    async () => {
      const calls = join(ws, '..', `${ws.split('/').at(-1)}-calls.txt`);
      writeFileSync(
        join(ws, 'eval.mjs'),
        `import { appendFileSync, readFileSync } from ` +
          `'node:fs';\nappendFileSync(${JSON.stringify(calls)}, 'x\\n');\nconst { x ` +
          `} = JSON.parse(readFileSync('config.json', 'utf8'));\nconst n = ` +
          `readFileSync(${JSON.stringify(calls)}, 'utf8').length / ` +
          `2;\nconsole.log('score: ' + ((x - 3) ** 2 + 1 + (n % 3) * 0.01));\n`,
      );
      git('add', '-A');
      git('commit', '-q', '-m', 'noisy eval');
      try {
        const run = await loop('run', '--max-iterations=1', '--keep', 'noise-aware');
        expect(run.err).toBe('');
        expect(run.code).toBe(0);
        const n = readFileSync(calls, 'utf8').split('\n').filter(Boolean).length;
        // 4 baseline runs, then the candidate's (one when it is clearly worse: the futility stop; up to maxSamples
        // otherwise).
        expect(n).toBeGreaterThanOrEqual(5);
        expect(n).toBeLessThanOrEqual(4 + 10);
        expect(parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'))).toHaveLength(2);
      } finally {
        rmSync(calls, { force: true });
      }
    },
  );

  it('a bad flag value exits 2 before anything runs', async () => {
    const run = await loop('run', '--keep=min-delta');
    expect(run.code).toBe(2);
    expect(run.err).toContain('--keep (keep.minDelta): policy min-delta needs minDelta');
    expect(git('rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
  });
});

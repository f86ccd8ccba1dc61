import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAlive } from '@loop/internal-test-utils';
import { createFunctionProposer } from '@loop/core';
import { incumbentCurvePruner, nonFinitePruner } from '@loop/core/policies';
import { createAutoIterate, parseAutoIterateTsv } from '../src/index.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

// A training: the curve is loss(step) = 5 / (1 + step * rate); it prints "step <s> val <v>" every
// step (10 steps) and starts a grandchild that would outlive it.
const TRAIN = `import { readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
const { rate } = JSON.parse(readFileSync('config.json', 'utf8'));
const child = spawn('sleep', ['60'], { stdio: 'ignore' });
writeFileSync('.loop/grandchild-' + process.env.LOOP_ITERATION + '.pid', String(child.pid));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let v = 0;
for (let step = 1; step <= 10; step++) {
  v = 5 / (1 + step * rate); // rate "nan" diverges at once
  console.log('step ' + step * 100 + ' val ' + v);
  // A doomed run (rate below 0.5, or nan) hangs after its third step: only a pruner (or the
  // 60 s kill timeout, failing the test) ends it, whatever the machine's load.
  await sleep(!(rate >= 0.5) && step >= 3 ? 120000 : 20);
}
console.log('score: ' + v);
child.kill();
`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-prune-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ rate: 1 }));
  writeFileSync(join(dir, 'train.mjs'), TRAIN);
  writeFileSync(join(dir, '.gitignore'), '.loop/\n');
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  execFileSync('mkdir', ['-p', join(dir, '.loop')]);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('pruning in auto-iterate (issue 27, real git and processes)', () => {
  it(
    'a doomed run is killed with its grandchild at the step a pruner says, ' +
      'its row is a discard saying so, and the tree is the last keep',
    async () => {
      const rates: (number | string)[] = [2, 0.1, 'nan', 3];
      const proposer = createFunctionProposer('scripted', ({ iteration }) => {
        writeFileSync(join(dir, 'config.json'), JSON.stringify({ rate: rates[iteration - 1] }));
        return { description: `rate -> ${rates[iteration - 1]}` };
      });
      const run = createAutoIterate({
        dir,
        tag: 'prune',
        proposer,
        files: { targetFiles: ['config.json'], readOnlyFiles: ['train.mjs'] },
        run: {
          command: 'node train.mjs',
          timeBudgetS: 30,
          killTimeoutS: 60,
          intermediate: { pattern: '^step (\\d+) val ([\\w.+-]+)$', pollMs: 10 },
        },
        score: { metricName: 'score', direction: 'minimize' },
        stop: { maxIterations: rates.length },
        prune: { pruners: [nonFinitePruner(), incumbentCurvePruner({ margin: 0.1, warmupSteps: 200 })], steps: 1000 },
      });
      const summary = await run.run();
      const rows = parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));
      expect(rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted', 'reverted', 'kept']);
      // In the seed's file a pruned run is a plain discard (seed 003 statuses).
      expect(readFileSync(join(dir, 'results.tsv'), 'utf8').split('\n')[3]).toMatch(/\tdiscard\trate -> 0\.1 \(pruned/);
      expect(rows[2]?.description).toMatch(/^rate -> 0\.1 \(pruned at step 200 of 1000: [\d.]+ vs incumbent [\d.]+\)$/);
      expect(rows[3]?.description).toBe('rate -> nan (pruned at step 100 of 1000: value NaN)');
      expect(summary.counts.crash).toBe(0);
      // Every run's grandchild is gone, the pruned runs' included.
      for (const i of [2, 3])
        expect(isAlive(Number(readFileSync(join(dir, `.loop/grandchild-${i}.pid`), 'utf8')))).toBe(false);
      // The workspace is the last keep's tree, clean.
      expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ rate: 3 });
      expect(git('status', '--porcelain')).toBe('');
    },
  );
});

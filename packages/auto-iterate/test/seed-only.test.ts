import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFunctionProposer } from '@loop/core';
import { createAutoIterate, parseAutoIterateTsv, type AutoIterateOptions } from '../src/index.js';
import { withOptions, type OptionsOver } from './with-options.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

// A pure-noise objective: the score depends only on the seed (a hash of it), never on lr.
const EVAL = `import { readFileSync, appendFileSync } from 'node:fs';
const { seed } = JSON.parse(readFileSync('config.json', 'utf8'));
appendFileSync('.git/evals.log', 'seed=' + seed + '\\n');
let h = 2166136261 ^ seed; for (let i = 0; i < 4; i++) h = Math.imul(h ^ (h >>> 15), 2246822507) >>> 0;
console.log('score: ' + (seed === 0 ? 0.5 : (h % 10000) / 10000));
`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-seed-only-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ lr: 0.1, seed: 0 }));
  writeFileSync(join(dir, 'eval.mjs'), EVAL);
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const reseed = createFunctionProposer('reseed', ({ iteration }) => {
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ lr: 0.1, seed: iteration }));
  return { description: `seed -> ${iteration}` };
});

function options(over: OptionsOver = {}): AutoIterateOptions {
  return withOptions(
    {
      dir,
      tag: 'seed',
      files: { targetFiles: ['config.json'], readOnlyFiles: ['eval.mjs'] },
      run: { command: 'node eval.mjs', timeBudgetS: 5, killTimeoutS: 10 },
      score: { metricName: 'score', direction: 'minimize' },
      stop: { maxIterations: 50 },
      proposer: reseed,
    },
    over,
  );
}

describe('seed-only changes under the default auto-iterate settings (issue 17)', () => {
  it(
    'a proposer that only reseeds a pure-noise objective gets 0 keeps in 50 ' +
      'iterations, each proposal evaluated once',
    async () => {
      const summary = await createAutoIterate(options()).run();
      const rows = parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));
      expect(summary.counts.kept).toBe(0);
      expect(rows.slice(1)).toHaveLength(50);
      expect(rows.slice(1).every((r) => r.status === 'reverted' && r.description.includes('(seed-only change)'))).toBe(
        true,
      );
      expect(
        readFileSync(join(dir, '.git', 'evals.log'), 'utf8')
          .trim()
          .split('\n'),
      ).toHaveLength(51); // baseline + one per proposal
      expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ lr: 0.1, seed: 0 });
    },
    240_000,
  );

  it('seedOnly: false turns the rule off: the same lucky seeds are kept', async () => {
    const summary = await createAutoIterate(options({ keep: { seedOnly: false }, stop: { maxIterations: 10 } })).run();
    expect(summary.counts.kept).toBeGreaterThan(0);
  }, 120_000);
});

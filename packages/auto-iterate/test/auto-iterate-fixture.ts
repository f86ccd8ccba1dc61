// The repository and options shared by the auto-iterate end-to-end tests.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createFunctionProposer, type Proposer } from '@loop/core';
import { parseAutoIterateTsv, type AutoIterateOptions } from '../src/index.js';
import { withOptions, type OptionsOver } from './with-options.js';
import { watchSetting } from './watch-setting.js';

/** The test's repository (a fresh git repository with config.json and eval.mjs), set before each test. */
export let dir: string;
/** git in `dir`. */
export const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

// The experiment: score = (x - 3)^2 + 1 printed as "score: <n>"; x = 7 sleeps (a timeout),
// x = 8 prints no metric, x = 9 exits non-zero. Each run appends to .loop/runs.log (excluded).
export const EVAL = `import { readFileSync, appendFileSync, mkdirSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
mkdirSync('.loop', { recursive: true });
appendFileSync('.loop/runs.log', 'run x=' + x + '\\n');
console.log('evaluating x=' + x);
if (x === 7) setTimeout(() => {}, 60000);
else if (x === 8) console.log('no metric today');
else if (x === 9) { console.log('boom'); process.exit(3); }
else console.log('score: ' + ((x - 3) ** 2 + 1));
`;

/** Registers the fresh repository of each test (beforeEach) and its removal (afterEach). */
export function useRepository(): void {
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'loop-auto-iterate-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 0 }));
    writeFileSync(join(dir, 'eval.mjs'), EVAL);
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
}

/** A proposer that sets x to the next value of `xs` each iteration. */
export function scripted(xs: number[], extra?: (iteration: number) => void): Proposer {
  return createFunctionProposer('scripted', ({ iteration }) => {
    const x = xs[iteration - 1]!;
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ x }));
    extra?.(iteration);
    return { description: `x -> ${x}` };
  });
}

/** The base options of these tests (x from `xs`, one iteration each) with `over` on top. */
export function options(xs: number[], over: OptionsOver = {}): AutoIterateOptions {
  return withOptions(
    {
      dir,
      tag: 'test',
      proposer: scripted(xs),
      files: { targetFiles: ['config.json'], readOnlyFiles: ['eval.mjs'], watch: watchSetting.watch },
      run: { command: 'node eval.mjs', timeBudgetS: 1, killTimeoutS: 1.5 },
      score: { metricName: 'score', direction: 'minimize' },
      stop: { maxIterations: xs.length },
    },
    over,
  );
}

/** results.tsv of `dir`. */
export const rows = () => parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));
/** True when `sha` is an ancestor of HEAD. */
export const isAncestor = (sha: string) => {
  try {
    git('merge-base', '--is-ancestor', sha, 'HEAD');
    return true;
  } catch {
    return false;
  }
};

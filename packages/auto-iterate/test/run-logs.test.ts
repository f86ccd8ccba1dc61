import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFunctionProposer } from '@loop/core';
import { createAutoIterate, RUN_FILES } from '../src/index.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

// Prints its iteration, its working directory and x; x = 7 crashes. score = (x - 3)^2 + 1.
const EVAL = `import { readFileSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
console.log('iteration ' + process.env.LOOP_ITERATION + ' in ' + process.cwd() + ' x=' + x);
if (x === 7) { console.error('boom: x=7 is not allowed'); process.exit(1); }
console.log('score: ' + ((x - 3) ** 2 + 1));
`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-auto-iterate-logs-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(join(dir, 'eval.mjs'), EVAL);
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  mkdirSync(join(dir, '.loop'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(xs: readonly number[], extra: { keepLogs?: number; parallel?: { candidates: number } } = {}) {
  const proposer = createFunctionProposer('scripted', ({ iteration, workingCopy }) => {
    writeFileSync(join(workingCopy?.dir ?? dir, 'config.json'), JSON.stringify({ x: xs[iteration - 1] }));
    return { description: `x -> ${xs[iteration - 1]}` };
  });
  return createAutoIterate({
    dir,
    tag: 'logs',
    files: {
      targetFiles: ['config.json'],
      readOnlyFiles: ['eval.mjs'],
      ...(extra.keepLogs !== undefined ? { keepLogs: extra.keepLogs } : {}),
    },
    run: { command: 'node eval.mjs', timeBudgetS: 20, killTimeoutS: 30 },
    score: { metricName: 'score' },
    stop: { maxIterations: xs.length },
    recovery: { maxRepairAttempts: 0 },
    proposer,
    ...(extra.parallel ? { parallel: extra.parallel } : {}),
  }).run();
}

const logs = () => readdirSync(join(dir, RUN_FILES.logs)).sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
const logOf = (name: string) => readFileSync(join(dir, RUN_FILES.logs, name), 'utf8');

describe('run logs are kept per iteration in .loop/logs (issue 32 item 16)', () => {
  it(
    "a real run of 4 iterations in place keeps each run's own log (baseline, " +
      "keeps, discards, a crash's stderr), while run.log holds only the last",
    async () => {
      await run([4, 7, 2, 10]);
      expect(logs()).toEqual(['0.log', '1.log', '2.log', '3.log', '4.log']);
      for (const [i, x] of [
        [0, 0],
        [1, 4],
        [2, 7],
        [3, 2],
        [4, 10],
      ] as const)
        expect(logOf(`${i}.log`)).toContain(`iteration ${i} in ${dir} x=${x}`);
      expect(logOf('2.log')).toContain('boom: x=7 is not allowed');
      expect(readFileSync(join(dir, 'run.log'), 'utf8')).toContain('iteration 4 ');
      expect(git('status', '--porcelain')).toBe(''); // .loop/ is not part of the tree
    },
  );

  it(
    "K = 2 working copies: each candidate's log, written in its temporary " +
      'copy, is kept in the main workspace after the copy is gone',
    async () => {
      await run([5, 4, 2, 10], { parallel: { candidates: 2 } });
      expect(logs()).toEqual(['0.log', '1.log', '2.log', '3.log', '4.log']);
      for (const [i, x] of [
        [1, 5],
        [2, 4],
        [3, 2],
        [4, 10],
      ] as const) {
        expect(logOf(`${i}.log`)).toMatch(new RegExp(`^iteration ${i} in \\S*loop-copy-${i}\\.\\d+-\\S* x=${x}$`, 'm'));
      }
      // the copies never write the main run.log
      expect(readFileSync(join(dir, 'run.log'), 'utf8')).toContain(`iteration 0 in ${dir} x=0`);
    },
  );

  it('the bound holds: keepLogs 3 keeps only the 3 newest logs of a 6-iteration run', async () => {
    await run([4, 5, 2, 10, 1, 3], { keepLogs: 3 });
    expect(logs()).toEqual(['4.log', '5.log', '6.log']);
    expect(logOf('6.log')).toContain('x=3');
  });

  it('keepLogs 0 writes no .loop/logs folder', async () => {
    await run([4, 5], { keepLogs: 0 });
    expect(readdirSync(join(dir, '.loop'))).not.toContain('logs');
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFunctionProposer } from '@loop/core';
import { createAutoIterate, parseAutoIterateTsv, type AutoIterateOptions } from '../src/index.js';
import { withOptions, type OptionsOver } from './with-options.js';

// Issue 12 fault 8: a candidate that forges its own score. The program under edit is train.mjs
// (the target); it writes model.json. The read-only evaluator scores model.json itself.
let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

const train = (x: number, forge: boolean) =>
  `import { writeFileSync } from 'node:fs';\nwriteFileSync('model.json', JSON.stringify({ x: ${x} }));\n` +
  (forge
    ? `process.on('exit', () => { console.log('score: 0'); try { ` +
      `writeFileSync('metric.txt', 'score: 0\\n'); } catch {} });\n`
    : '');

// In-process evaluator: imports the candidate, so the candidate's exit trap runs after its line.
const EVAL_IN_PROCESS = `import { readFileSync } from 'node:fs';
await import('./train.mjs');
const { x } = JSON.parse(readFileSync('model.json', 'utf8'));
console.log('score: ' + ((x - 3) ** 2 + 1));
`;
// The structure docs/write-your-own-harness.md recommends: the candidate runs as a child; once it
// has ended, the evaluator scores its output itself and writes the metric file last.
const EVAL_CHILD = `import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
const child = spawnSync(process.execPath, ['train.mjs'], { stdio: 'inherit' });
if (child.status !== 0) process.exit(1);
const { x } = JSON.parse(readFileSync('model.json', 'utf8'));
const score = (x - 3) ** 2 + 1;
console.log('evaluator: score ' + score);
writeFileSync('metric.txt', 'score: ' + score + '\\n');
`;
const SCORELIB = 'export const score = (x) => (x - 3) ** 2 + 1;\n';
const EVAL_LIB = `import { readFileSync } from 'node:fs';
import { score } from 'scorelib';
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
console.log('score: ' + score(x));
`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-forgery-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function repo(files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
}

/** Iteration 1 improves honestly (x = 2); iteration 2 is worse (x = 9) but forges "score: 0". */
const proposer = createFunctionProposer('forger', ({ iteration }) => {
  writeFileSync(join(dir, 'train.mjs'), train(iteration === 1 ? 2 : 9, iteration === 2));
  return { description: iteration === 1 ? 'honest x=2' : 'x=9 with an exit trap' };
});

const options = (over: OptionsOver): AutoIterateOptions =>
  withOptions(
    {
      dir,
      tag: 't',
      files: { targetFiles: ['train.mjs'], readOnlyFiles: ['eval.mjs'] },
      run: { command: 'node eval.mjs', timeBudgetS: 10, killTimeoutS: 20 },
      score: { metricName: 'score' },
      stop: { maxIterations: 2 },
      proposer,
    },
    over,
  );
const rows = () => parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));

describe('a candidate cannot forge its own score through the metric file', () => {
  it(
    'with the metric in the log, an exit-trap line printed after the ' +
      "evaluator's is what match 'last' reads (why metricFile exists)",
    async () => {
      repo({ 'train.mjs': train(0, false), 'eval.mjs': EVAL_IN_PROCESS });
      await createAutoIterate(options({})).run();
      expect(rows().map((r) => [r.status, r.score])).toEqual([
        ['baseline', 10],
        ['kept', 2],
        ['kept', 0],
      ]);
    },
  );

  it("match: 'first' reads the evaluator's line when it prints before the candidate's exit trap", async () => {
    repo({ 'train.mjs': train(0, false), 'eval.mjs': EVAL_IN_PROCESS });
    await createAutoIterate(options({ score: { match: 'first' } })).run();
    expect(rows().map((r) => [r.status, r.score])).toEqual([
      ['baseline', 10],
      ['kept', 2],
      ['reverted', 37],
    ]);
  });

  it(
    'with metricFile written by the evaluator after the candidate ended, the ' +
      'forged log line and the forged file write are not kept',
    async () => {
      repo({ 'train.mjs': train(0, false), 'eval.mjs': EVAL_CHILD });
      await createAutoIterate(options({ score: { metricFile: 'metric.txt' } })).run();
      expect(rows().map((r) => [r.status, r.score])).toEqual([
        ['baseline', 10],
        ['kept', 2],
        ['reverted', 37],
      ]);
      expect(readFileSync(join(dir, 'run.log'), 'utf8')).toContain('score: 0'); // the forgery ran, in the log
      expect(git('status', '--porcelain')).toBe(''); // metric.txt is a run file, kept out of git
    },
  );

  it(
    'replacing a module in the git-excluded node_modules listed in ' + 'fingerprintPaths is HARNESS_TAMPERED, not kept',
    async () => {
      repo({ 'config.json': JSON.stringify({ x: 0 }), 'eval.mjs': EVAL_LIB });
      mkdirSync(join(dir, 'node_modules', 'scorelib'), { recursive: true });
      writeFileSync(
        join(dir, 'node_modules', 'scorelib', 'package.json'),
        JSON.stringify({ name: 'scorelib', type: 'module', exports: './index.js' }),
      );
      writeFileSync(join(dir, 'node_modules', 'scorelib', 'index.js'), SCORELIB);
      const shim = createFunctionProposer('shim', () => {
        writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 9 }));
        writeFileSync(join(dir, 'node_modules', 'scorelib', 'index.js'), 'export const score = () => 0.000001;\n');
        return { description: 'x=9 and a score shim' };
      });
      const run = createAutoIterate(
        options({
          proposer: shim,
          files: { targetFiles: ['config.json'], fingerprintPaths: ['node_modules'] },
          stop: { maxIterations: 1 },
        }),
      );
      await expect(run.run()).rejects.toMatchObject({ code: 'HARNESS_TAMPERED' });
      expect(rows().every((r) => r.status !== 'kept')).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ x: 0 });
    },
  );
});

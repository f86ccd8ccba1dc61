import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFunctionProposer } from '@loop/core';
import { createAutoIterate, parseAutoIterateTsv } from '../src/index.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

// score = (x - 3)^2 + 1; every run records its working directory in .loop/cwds.log of the main workspace.
const EVAL = (main: string) => `import { readFileSync, appendFileSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
appendFileSync(${JSON.stringify(join(main, '.loop', 'cwds.log'))}, process.cwd() + '\\n');
console.log('score: ' + ((x - 3) ** 2 + 1));
`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-auto-iterate-parallel-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(join(dir, 'eval.mjs'), EVAL(dir));
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  execFileSync('mkdir', ['-p', join(dir, '.loop')]);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('createAutoIterate parallel (issue 15)', () => {
  it(
    'K = 2 local working copies on a real git workspace: one row per ' +
      'candidate, the best of a batch committed on the run branch, every ' +
      'non-winner saved under refs/loop/discarded/<n> with its row carrying the ' +
      'commit id',
    async () => {
      const xs = [5, 4, 2, 10]; // batch 1: 5 (score 5), 4 (score 2, kept); batch 2: 2 (score 2, equal), 10 (score 50)
      const proposer = createFunctionProposer('scripted', ({ iteration, workingCopy }) => {
        writeFileSync(join(workingCopy!.dir!, 'config.json'), JSON.stringify({ x: xs[iteration - 1] }));
        return { description: `x -> ${xs[iteration - 1]}` };
      });
      const run = createAutoIterate({
        dir,
        tag: 'par',
        files: { targetFiles: ['config.json'], readOnlyFiles: ['eval.mjs'] },
        run: { command: 'node eval.mjs', timeBudgetS: 20, killTimeoutS: 30 },
        score: { metricName: 'score' },
        stop: { maxIterations: 4 },
        proposer,
        parallel: { candidates: 2 },
      });
      const summary = await run.run();
      expect(summary.counts.kept).toBe(1);

      const rows = parseAutoIterateTsv(readFileSync(run.resultsPath, 'utf8'));
      expect(rows.map((r) => [r.status, r.score, r.description])).toEqual([
        ['baseline', 10, 'baseline'],
        ['reverted', 5, 'x -> 5 (not the best of the batch)'],
        ['kept', 2, 'x -> 4'],
        ['reverted', 2, 'x -> 2'],
        ['reverted', 50, 'x -> 10'],
      ]);
      // The run branch: the baseline commit, then the batch winner only; the workspace holds it.
      const base = git('rev-parse', 'main');
      expect(git('rev-list', '--count', `${base}..auto-iterate/par`)).toBe('1');
      expect(git('rev-parse', '--short=7', 'auto-iterate/par')).toBe(rows[2]!.candidateId);
      expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ x: 4 });
      expect(git('status', '--porcelain')).toBe('');

      // Each non-winner: refs/loop/discarded/<n>, its row's commit, its own change on top of the incumbent of its
      // batch.
      for (const [n, x, parent] of [
        [1, 5, base],
        [3, 2, git('rev-parse', 'auto-iterate/par')],
        [4, 10, git('rev-parse', 'auto-iterate/par')],
      ] as const) {
        const ref = `refs/loop/discarded/${n}`;
        expect(git('rev-parse', '--short=7', ref)).toBe(rows[n]!.candidateId);
        expect(JSON.parse(git('show', `${ref}:config.json`))).toEqual({ x });
        expect(git('rev-parse', `${ref}^`)).toBe(parent);
      }
      // Candidates ran in their copies, never in the main workspace (which ran only the baseline).
      const cwds = readFileSync(join(dir, '.loop', 'cwds.log'), 'utf8')
        .trim()
        .split('\n');
      expect(cwds.filter((c) => c === dir)).toHaveLength(1);
      expect(cwds.filter((c) => c.includes('loop-copy-'))).toHaveLength(4);
    },
  );

  it(
    'parallel options are validated: concurrency above candidates is ' + 'CONFIG_INVALID naming parallel.concurrency',
    () => {
      const proposer = createFunctionProposer('none', () => ({ description: 'none' }));
      expect(() =>
        createAutoIterate({
          dir,
          files: { targetFiles: ['config.json'] },
          run: { command: 'node eval.mjs' },
          score: { metricName: 'score' },
          proposer,
          parallel: { candidates: 2, concurrency: 3 },
        }),
      ).toThrow(/parallel\.concurrency/);
    },
  );
});

describe('createAutoIterate parallel, async schedule (issue 27 item 4)', () => {
  it(
    "a slow candidate does not hold its neighbour's slot: later candidates " +
      'run meanwhile; rows stay in iteration order and git agrees with them',
    async () => {
      // x = 5 sleeps until the file go exists; the proposer of iteration 4 creates it (so iterations
      // 2, 3 and 4 must have run in the other slot while iteration 1 waited).
      writeFileSync(
        join(dir, 'eval.mjs'),
        `import { readFileSync, existsSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
while (x === 5 && !existsSync(${JSON.stringify(join(dir, '.loop', 'go'))})) await new Promise((r) => setTimeout(r, 20));
console.log('score: ' + ((x - 3) ** 2 + 1));
`,
      );
      git('add', '.');
      git('commit', '-q', '-m', 'slow eval');
      const xs = [5, 4, 2, 8];
      const proposer = createFunctionProposer('scripted', ({ iteration, workingCopy }) => {
        if (iteration === 4) writeFileSync(join(dir, '.loop', 'go'), '');
        writeFileSync(join(workingCopy!.dir!, 'config.json'), JSON.stringify({ x: xs[iteration - 1] }));
        return { description: `x -> ${xs[iteration - 1]}` };
      });
      const run = createAutoIterate({
        dir,
        tag: 'async',
        files: { targetFiles: ['config.json'], readOnlyFiles: ['eval.mjs'] },
        run: { command: 'node eval.mjs', timeBudgetS: 60, killTimeoutS: 120 },
        score: { metricName: 'score' },
        stop: { maxIterations: 4 },
        proposer,
        parallel: { candidates: 2, schedule: 'async' },
      });
      await run.run();
      const rows = parseAutoIterateTsv(readFileSync(run.resultsPath, 'utf8'));
      // 1 (x 5, score 5) kept first; 2 (x 4, score 2) passed against the baseline and beats 5: kept;
      // 3 (x 2, score 2) equal: reverted; 4 (x 8, score 26) reverted.
      expect(rows.map((r) => [r.iteration, r.status, r.score])).toEqual([
        [0, 'baseline', 10],
        [1, 'kept', 5],
        [2, 'kept', 2],
        [3, 'reverted', 2],
        [4, 'reverted', 26],
      ]);
      const base = git('rev-parse', 'main');
      expect(git('log', '--format=%h', '--abbrev=7', `${base}..auto-iterate/async`).split('\n').reverse()).toEqual([
        rows[1]!.candidateId,
        rows[2]!.candidateId,
      ]);
      expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ x: 4 });
      expect(git('status', '--porcelain')).toBe('');
      for (const n of [3, 4])
        expect(git('rev-parse', '--short=7', `refs/loop/discarded/${n}`)).toBe(rows[n]!.candidateId);
    },
  );
});

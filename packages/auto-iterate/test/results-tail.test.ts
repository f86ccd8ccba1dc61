// Issue 32 item 9: the torn-row advice of results.tsv must work when followed, and a complete
// last row that only lost its final newline is repaired by a resume.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFunctionProposer, isLoopError } from '@loop/core';
import { createAutoIterate, parseAutoIterateTsv, type AutoIterateOptions } from '../src/index.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
const results = () => join(dir, 'results.tsv');
const state = () => join(dir, '.loop', 'state.json');
const XS = [5, 2, 4, 1];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-results-tail-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(
    join(dir, 'eval.mjs'),
    "import { readFileSync } from 'node:fs';\nconst { x } = " +
      "JSON.parse(readFileSync('config.json', 'utf8'));\nconsole.log('score: ' " +
      '+ ((x - 3) ** 2 + 1));\n',
  );
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

function options(maxIterations: number, resume = false): AutoIterateOptions {
  return {
    dir,
    tag: 'tail',
    files: { targetFiles: ['config.json'], readOnlyFiles: ['eval.mjs'] },
    run: { command: 'node eval.mjs', timeBudgetS: 30, killTimeoutS: 60 },
    score: { metricName: 'score' },
    stop: { maxIterations },
    recovery: { resume },
    proposer: createFunctionProposer('scripted', ({ iteration }) => {
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: XS[iteration - 1] }));
      return { description: `x -> ${XS[iteration - 1]}` };
    }),
  };
}

/** Runs 2 iterations (baseline + 2 rows), so state.json counts iteration 2 (line 4 of results.tsv). */
async function twoIterations(): Promise<string> {
  await createAutoIterate(options(2)).run();
  const text = readFileSync(results(), 'utf8');
  expect(text.split('\n')).toHaveLength(5);
  expect(JSON.parse(readFileSync(state(), 'utf8')).iteration).toBe(2);
  return text;
}

describe('a results.tsv whose last row has no final newline (issue 32 item 9)', () => {
  it(
    'a complete last row that state.json counts and that only lost its ' +
      'newline is repaired by resume (newline added, said on stderr) and the ' +
      'run goes on',
    async () => {
      const text = await twoIterations();
      truncateSync(results(), Buffer.byteLength(text) - 1);
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      const summary = await createAutoIterate(options(3, true)).run();
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toContain(
        'resume repaired: results.tsv line 4 (iteration 2, counted by state.json) had lost its final newline',
      );
      expect(summary.iterations).toBe(3);
      const rows = parseAutoIterateTsv(readFileSync(results(), 'utf8'));
      expect(rows.map((r) => r.iteration)).toEqual([0, 1, 2, 3]);
      expect(readFileSync(results(), 'utf8').startsWith(text)).toBe(true); // rows 0-2 unchanged
    },
    60_000,
  );

  it(
    'a start without resume only reads: the lost newline is not added and ' +
      'the refusal is RESUME_MISMATCH (continue with loop resume), not a torn ' +
      'row',
    async () => {
      const text = await twoIterations();
      truncateSync(results(), Buffer.byteLength(text) - 1);
      const error = await createAutoIterate(options(3))
        .run()
        .catch((e: unknown) => e);
      expect(isLoopError(error, 'RESUME_MISMATCH')).toBe(true);
      expect(readFileSync(results(), 'utf8')).toBe(text.slice(0, -1));
    },
    60_000,
  );

  it(
    'a last row cut inside that state.json already counts: the error says to ' +
      'delete the line and state.json, and doing just that lets resume go on ' +
      '(iteration 2 run again)',
    async () => {
      const text = await twoIterations();
      const lines = text.split('\n');
      // line 4 cut after its commit
      writeFileSync(results(), `${lines.slice(0, 3).join('\n')}\n${lines[3]!.split('\t')[0]}\t`);
      const error = await createAutoIterate(options(3, true))
        .run()
        .catch((e: unknown) => e);
      expect(isLoopError(error, 'RESULTS_CORRUPT')).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain(`results.tsv:4: the last row (iteration 2) is cut`);
      expect(message).toContain(`delete line 4 and ${state()}, then resume`);
      // Follow the advice.
      writeFileSync(results(), `${lines.slice(0, 3).join('\n')}\n`);
      rmSync(state());
      const summary = await createAutoIterate(options(3, true)).run();
      expect(summary.iterations).toBe(3);
      const rows = parseAutoIterateTsv(readFileSync(results(), 'utf8'));
      // iteration 2 again, then 3
      expect(rows.slice(1).map((r) => r.description)).toEqual(['x -> 5', 'x -> 2', 'x -> 4']);
      expect(git('status', '--porcelain')).toBe('');
    },
    60_000,
  );

  it(
    'a row torn by a kill before state.json counted it: deleting the line, ' + 'as the error says, lets resume go on',
    async () => {
      const text = await twoIterations();
      writeFileSync(results(), `${text}abc1234\t3`); // iteration 3's append cut by a kill
      const error = await createAutoIterate(options(3, true))
        .run()
        .catch((e: unknown) => e);
      expect(isLoopError(error, 'RESULTS_CORRUPT')).toBe(true);
      expect((error as Error).message).toContain('delete line 5; then resume');
      writeFileSync(results(), text);
      const summary = await createAutoIterate(options(3, true)).run();
      expect(summary.iterations).toBe(3);
      expect(parseAutoIterateTsv(readFileSync(results(), 'utf8'))).toHaveLength(4);
    },
    60_000,
  );
});

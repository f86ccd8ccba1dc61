// Issue 31: `files.deferStagingAt` reaches the git rollback. The harness itself reads the index
// (`git diff --cached --quiet`): with 0 every candidate's staging waits for its keep (the index
// lags the candidate commit while it runs), with Infinity the index equals the commit at every
// instant, as after `git commit`; both runs end with the same rows and a clean tree.
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

// Records whether the index equals HEAD as the harness sees it, then scores x.
const EVAL = `import { execSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
let state = 'equal';
try { execSync('git diff --cached --quiet'); } catch { state = 'lags'; }
appendFileSync('.loop-index.log', state + '\\n');
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
console.log('score: ' + ((x - 3) ** 2 + 1));
`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-defer-staging-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(join(dir, 'eval.mjs'), EVAL);
  writeFileSync(join(dir, '.gitignore'), '.loop-index.log\n');
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(deferStagingAt: number): Promise<{ rows: string[]; seen: string[] }> {
  const xs = [2, 9, 3, 1]; // keep, discard, keep, discard
  const proposer = createFunctionProposer('xs', ({ iteration }) => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: xs[iteration - 1] }));
    return { description: `x -> ${xs[iteration - 1]}` };
  });
  await createAutoIterate({
    dir,
    tag: `d${deferStagingAt}`,
    proposer,
    files: { targetFiles: ['config.json'], readOnlyFiles: ['eval.mjs'], deferStagingAt },
    run: { command: 'node eval.mjs', timeBudgetS: 10, killTimeoutS: 20 },
    score: { metricName: 'score', direction: 'minimize' },
    stop: { maxIterations: xs.length },
  }).run();
  const rows = parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8')).map((r) => `${r.status} ${r.score}`);
  return { rows, seen: readFileSync(join(dir, '.loop-index.log'), 'utf8').trim().split('\n') };
}

describe('auto-iterate files.deferStagingAt', () => {
  it('0: the harness sees the index lag every candidate, Infinity: never; rows and tree agree', async () => {
    const deferred = await run(0);
    expect(deferred.seen).toEqual(['equal', 'lags', 'lags', 'lags', 'lags']); // the baseline, then 4 candidates
    expect(git('status', '--porcelain')).toBe('');
    expect(git('diff', '--cached', '--name-only')).toBe('');
    const tree = git('rev-parse', 'HEAD^{tree}');
    git('checkout', '-q', 'main');
    rmSync(join(dir, 'results.tsv'));
    rmSync(join(dir, '.loop-index.log'));
    rmSync(join(dir, '.loop'), { recursive: true, force: true });
    const staged = await run(Infinity);
    expect(staged.seen).toEqual(['equal', 'equal', 'equal', 'equal', 'equal']);
    expect(staged.rows).toEqual(deferred.rows);
    expect(git('rev-parse', 'HEAD^{tree}')).toBe(tree);
    expect(git('status', '--porcelain')).toBe('');
  });

  it('a bad deferStagingAt is CONFIG_INVALID naming files.deferStagingAt', () => {
    expect(() =>
      createAutoIterate({
        dir,
        tag: 'bad',
        proposer: createFunctionProposer('none', () => ({ description: 'none' })),
        files: { targetFiles: ['config.json'], deferStagingAt: 1.5 },
        run: { command: 'node eval.mjs', timeBudgetS: 10, killTimeoutS: 20 },
        score: { metricName: 'score', direction: 'minimize' },
        stop: { maxIterations: 1 },
      }),
    ).toThrow(/files\.deferStagingAt: must be a whole number of bytes \(0 or more\) or Infinity/);
  });
});

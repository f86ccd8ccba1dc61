import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFunctionProposer } from '@loop/core';
import { createAutoIterate, parseAutoIterateTsv } from '../src/index.js';
import { watchSetting } from './watch-setting.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

// The evaluation scores x, then misbehaves: a file of its own, a tracked file deleted, the target overwritten.
const EVAL = `import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('src/config.json', 'utf8'));
console.log('score: ' + ((x - 3) ** 2 + 1));
mkdirSync('junk', { recursive: true });
writeFileSync('junk/out-' + x + '.txt', 'model\\n');
rmSync('README.md', { force: true });
writeFileSync('src/config.json', JSON.stringify({ x: 99 }));
`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-harness-writes-'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(join(dir, 'eval.mjs'), EVAL);
  writeFileSync(join(dir, 'README.md'), 'keep me\n');
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('what the harness writes during a kept run is not part of the kept state', () => {
  it(
    'after each keep the workspace is the kept commit (the harness file gone, the deleted file back, the target ' +
      'as proposed); the next proposal starts from it and no commit carries the harness writes',
    async () => {
      const seen: string[] = [];
      const proposer = createFunctionProposer('step', ({ iteration }) => {
        seen.push(readFileSync(join(dir, 'src', 'config.json'), 'utf8'));
        writeFileSync(join(dir, 'src', 'config.json'), JSON.stringify({ x: iteration }));
        return { description: `x -> ${iteration}` };
      });
      await createAutoIterate({
        dir,
        tag: 't',
        proposer,
        files: { targetFiles: ['src'], readOnlyFiles: ['eval.mjs'], watch: watchSetting.watch },
        run: { command: 'node eval.mjs', timeBudgetS: 10, killTimeoutS: 20 },
        score: { metricName: 'score', direction: 'minimize' },
        stop: { maxIterations: 2 },
      }).run();
      const rows = parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));
      expect(rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'kept']);
      // The proposer saw the kept value each time, never the harness's 99.
      expect(seen).toEqual([JSON.stringify({ x: 0 }), JSON.stringify({ x: 1 })]);
      expect(readFileSync(join(dir, 'src', 'config.json'), 'utf8')).toBe(JSON.stringify({ x: 2 }));
      expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('keep me\n');
      expect(existsSync(join(dir, 'junk'))).toBe(false);
      expect(git('status', '--porcelain')).toBe('');
      const touched = git('log', '--format=', '--name-only', 'main..auto-iterate/t').split('\n').filter(Boolean);
      expect([...new Set(touched)]).toEqual(['src/config.json']);
      // Nothing lost: the baseline's and each keep's harness writes are rescue commits.
      expect(git('show', 'refs/loop/discarded/baseline:junk/out-0.txt')).toBe('model');
      expect(git('show', 'refs/loop/discarded/keep-1:junk/out-1.txt')).toBe('model');
    },
  );
});

// Issue 31: with watch (the default), an auto-iterate iteration learns what the proposer and the
// harness touched from inotify; what they touch is still found, and rolled back, every time.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFunctionProposer } from '@loop/core';
import type { GitWatchReport } from '@loop/rollback-git';
import { createAutoIterate, parseAutoIterateTsv } from '../src/index.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
// The harness scores x and, hostile (x > 0), also writes a tracked file and new nested folders outside the targets.
const EVAL = `import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
if (x > 0) {
  writeFileSync('lib/util.txt', 'overwritten by the harness ' + x + '\\n');
  mkdirSync('made/by/harness', { recursive: true });
  writeFileSync('made/by/harness/x' + x + '.txt', 'new\\n');
}
console.log('score: ' + x);
`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-ai-watch-'));
  mkdirSync(join(dir, 'lib'));
  for (let i = 0; i < 30; i += 1) writeFileSync(join(dir, 'lib', `f${i}.txt`), `${i}\n`);
  writeFileSync(join(dir, 'lib', 'util.txt'), 'util\n');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(join(dir, 'eval.mjs'), EVAL);
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('auto-iterate with watch (issue 31)', () => {
  it(
    'iterations after the first stat only what inotify reported, and every ' +
      'harness write is still found and reverted',
    async () => {
      const reports: Array<GitWatchReport | undefined> = [];
      let run: ReturnType<typeof createAutoIterate> | undefined;
      const proposer = createFunctionProposer('bump', ({ iteration }) => {
        reports.push(run!.rollback.watchReport());
        writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: iteration }));
        return { description: `x = ${iteration}` };
      });
      // direction lower: every candidate (score x > 0) is worse than the baseline (0) and reverted.
      run = createAutoIterate({
        dir,
        tag: 'w',
        files: { targetFiles: ['config.json'], readOnlyFiles: ['eval.mjs'] },
        run: { command: 'node eval.mjs', timeBudgetS: 5, killTimeoutS: 10 },
        score: { metricName: 'score', direction: 'minimize' },
        stop: { maxIterations: 4 },
        proposer,
      });
      await run.run();
      const rows = parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));
      expect(rows.map((row) => row.status)).toEqual(['baseline', 'reverted', 'reverted', 'reverted', 'reverted']);
      // The harness's writes (a tracked file, new nested folders) were reverted after each discard.
      expect(readFileSync(join(dir, 'lib', 'util.txt'), 'utf8')).toBe('util\n');
      expect(existsSync(join(dir, 'made'))).toBe(false);
      expect(git('--no-optional-locks', 'status', '--porcelain')).toBe('');
      // One whole-tree walk (the first scan), every later scan from the journal.
      const last = reports.at(-1);
      expect(last?.full).toBe(1);
      expect(last?.partial).toBeGreaterThanOrEqual(4);
      expect(run.rollback.watchReport()).toBeUndefined(); // closed when the run ended
    },
  );
});

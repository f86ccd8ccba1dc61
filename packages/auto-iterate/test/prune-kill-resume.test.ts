import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture, runChild, isAlive } from '@loop/internal-test-utils';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'loop-prune-kill-'));
let bundle = '';
afterAll(() => rmSync(root, { recursive: true, force: true }), 60_000);
beforeAll(async () => {
  bundle = await bundleFixture(join(packageDir, 'test/prune-child.ts'), join(root, 'bundle'), 'prune-child');
}, 120_000);

// A doomed run (rate below 0.5) hangs after its third step; its grandchild records its pid.
const TRAIN = `import { readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
const { rate } = JSON.parse(readFileSync('config.json', 'utf8'));
const child = spawn('sleep', ['120'], { stdio: 'ignore' });
writeFileSync('.loop/grandchild-' + process.env.LOOP_ITERATION + '.pid', String(child.pid));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let v = 0;
for (let step = 1; step <= 10; step++) {
  v = 5 / (1 + step * rate);
  console.log('step ' + step * 100 + ' val ' + v);
  await sleep(rate < 0.5 && step >= 3 ? 120000 : 10);
}
console.log('score: ' + v);
child.kill();
`;

describe('a kill -9 mid-pruning (issue 27, real processes and git)', () => {
  it(
    "resume kills the pruned run's orphaned tree, redoes that iteration and " + 'ends with rows and git in agreement',
    async () => {
      const dir = join(root, 'ws');
      mkdirSync(join(dir, '.loop'), { recursive: true });
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ rate: 1 }));
      writeFileSync(join(dir, 'train.mjs'), TRAIN);
      writeFileSync(join(dir, '.gitignore'), '.loop/\n');
      const git = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
          cwd: dir,
          encoding: 'utf8',
        }).trim();
      git('init', '-q', '-b', 'main');
      git('add', '.');
      git('commit', '-q', '-m', 'init');

      const killed = await runChild(process.execPath, [bundle, 'kill', dir], { cwd: packageDir });
      expect(killed.signal).toBe('SIGKILL');
      const orphan = Number(readFileSync(join(dir, '.loop/grandchild-2.pid'), 'utf8'));

      const resumed = await runChild(process.execPath, [bundle, 'resume', dir], { cwd: packageDir });
      expect(resumed.stdout).toBe('{"ok":true}');
      expect(isAlive(orphan)).toBe(false);
      expect(isAlive(Number(readFileSync(join(dir, '.loop/grandchild-2.pid'), 'utf8')))).toBe(false);
      const rows = readFileSync(join(dir, 'results.tsv'), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split('\t'));
      expect(rows.map(([, , status, description]) => `${status} ${description?.replace(/: .*\)$/, ')')}`)).toEqual([
        'keep baseline',
        'keep rate -> 2',
        'discard rate -> 0.1 (pruned at step 200 of 1000)',
        'keep rate -> 3',
      ]);
      expect(rows[3]?.[0]).toBe(git('rev-parse', '--short=7', 'HEAD'));
      expect(git('status', '--porcelain')).toBe('');
    },
    120_000,
  );
});

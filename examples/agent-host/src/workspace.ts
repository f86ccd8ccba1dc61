import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The metric the workspace's harness prints: `score: <|x - 13|>`, lower is better. */
const SCORE = `import { readFileSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('params.json', 'utf8'));
if (x < 0) { console.error('x must not be negative'); process.exit(1); }
console.log('score: ' + Math.abs(x - 13));
`;

/**
 * Makes `dir` (an existing, empty folder) a git repository on branch `main` with one commit: the
 * target file `params.json` (`{"x": 0}`) and the harness `score.mjs`, which prints
 * `score: |x - 13|` (lower is better) and exits 1 for a negative `x` (a crash row).
 *
 * @returns `dir`
 */
export function createWorkspace(dir: string): string {
  writeFileSync(join(dir, 'params.json'), `${JSON.stringify({ x: 0 })}\n`);
  writeFileSync(join(dir, 'score.mjs'), SCORE);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=host', '-c', 'user.email=host@example.com', ...args], {
      cwd: dir,
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'target params.json, harness score.mjs');
  return dir;
}

// Reads what a run left in a workspace, for the tests: results.tsv rows, the run branch, the
// discarded refs (each with its tree), and files a run must not leave behind.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `git <args>` in `dir`, its trimmed stdout. */
export const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

/** results.tsv without its header, as `[commit, score, status, description]`. */
export const rowsOf = (dir: string): string[][] =>
  readFileSync(join(dir, 'results.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'));

/** What two runs of the same edits must agree on, with no commit id (their timestamps differ). */
export function runShape(dir: string) {
  const rows = rowsOf(dir);
  const treeOf = (rev: string) => git(dir, 'rev-parse', `${rev}^{tree}`);
  const refs = git(dir, 'for-each-ref', '--format=%(refname)', 'refs/loop/').split('\n').filter(Boolean);
  return {
    rows: rows.map(([, score, status, description]) => [score, status, description].join(' ')),
    // Every keep row's commit is on the branch; its tree is the candidate it kept.
    keptTrees: rows.filter((r) => r[2] === 'keep').map((r) => treeOf(r[0]!)),
    branchCommits: Number(git(dir, 'rev-list', '--count', 'refs/heads/auto-iterate/host')),
    branchTree: treeOf('refs/heads/auto-iterate/host'),
    discarded: Object.fromEntries(refs.map((ref) => [ref, treeOf(ref)])),
  };
}

/** Lock and temp files left in `.git` (a lock of the workspace or of git itself). */
export const leftLocks = (dir: string): string[] =>
  [
    'loop-workspace.lock',
    'loop-workspace.lock.owner.json',
    'index.lock',
    'HEAD.lock',
    'refs/heads/auto-iterate/host.lock',
  ].filter((f) => existsSync(join(dir, '.git', f)));

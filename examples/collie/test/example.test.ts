import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runExample } from '../src/run-example.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

it('example: scripted agents find the two real bugs of tiny-stats from the scorecard log, verify them in the worktree, fix them as one commit each, and the run converges with all 6 checks passing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'collie-example-'));
  dirs.push(dir);
  const lines: string[] = [];
  const r = await runExample(dir, (l) => lines.push(l));
  expect(r.outcomes.at(-1)).toMatchObject({ kind: 'done', status: 'converged' });
  expect(lines.at(-1)).toBe('<promise>Collie: AUTOITER DONE</promise>');
  const iter = join(r.runDir, 'iter-1');
  const triage = readFileSync(join(iter, 'triage.md'), 'utf8');
  expect(triage.match(/verdict: Real/g)).toHaveLength(2); // median, mean
  expect(triage).toContain('duplicate: another failure of mean() is already triaged as Real');
  expect(readFileSync(join(iter, 'fixes', 'FIX-002.md'), 'utf8')).toContain('reproduced in the worktree: mean([1, 2, 3, 4]) = 3.3333333333333335');
  expect(readFileSync(join(iter, 'audit.md'), 'utf8')).toContain('## G6 diff audit: PASS');
  expect(readFileSync(join(iter, 'summary.md'), 'utf8')).toContain('scalar_before: 3\nscalar_after: 6\nscalar_delta: 3\nconvergence: no\ndecision: stop_converged\nfixes_applied: [FIX-001, FIX-002]');
  const log = execFileSync('git', ['log', '--format=%s'], { cwd: r.worktree, encoding: 'utf8' }).trim().split('\n');
  expect(log).toEqual(['autoiter iter-1 FIX-002: mean: divide by xs.length in src/stats.js', 'autoiter iter-1 FIX-001: median: sort numerically with (a, b) => a - b in src/stats.js', 'tiny-stats 1.0.0']);
  expect(execFileSync(process.execPath, ['scripts/scorecard.js'], { cwd: r.worktree, encoding: 'utf8' })).toContain('passed: 6\nfailed: 0');
  // The reproduction tests the FIXes added pass against the fixed code.
  for (const t of ['test/repro-FIX-001.test.js', 'test/repro-FIX-002.test.js']) execFileSync(process.execPath, [t], { cwd: r.worktree });
  // The user's checkout is untouched: still one commit, still the buggy source, clean status.
  expect(execFileSync('git', ['log', '--format=%s'], { cwd: r.repo, encoding: 'utf8' }).trim()).toBe('tiny-stats 1.0.0');
  expect(readFileSync(join(r.repo, 'src', 'stats.js'), 'utf8')).toContain('s / (xs.length - 1)');
  expect(execFileSync('git', ['status', '--porcelain'], { cwd: r.repo, encoding: 'utf8' })).toBe('');
});

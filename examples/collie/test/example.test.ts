import { execFileSync } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { FLOW_STEPS } from '@loop/collie';
import { tokenEntrySchema } from '@loop/collie/rules';
import { flowLogDir, runExample, TEST_COMMAND } from '../src/run-example.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

it(
  'example: scripted agents find the two real bugs of tiny-stats from the ' +
    'scorecard log, verify them in the worktree, fix them through the flow ' +
    'pipeline (tdd red→green, review, simplify, regression, final review) as ' +
    'one commit each, and the run converges with all 6 checks passing',
  async () => {
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
    expect(readFileSync(join(iter, 'fixes', 'FIX-002.md'), 'utf8')).toContain(
      'reproduced in the worktree: mean([1, 2, 3, 4]) = 3.3333333333333335',
    );
    expect(readFileSync(join(iter, 'audit.md'), 'utf8')).toContain('## G6 diff audit: PASS');
    expect(readFileSync(join(iter, 'summary.md'), 'utf8')).toContain(
      'scalar_before: 3\nscalar_after: 6\nscalar_delta: 3\nconvergence: ' +
        'no\ndecision: stop_converged\nfixes_applied: [FIX-001, FIX-002]',
    );
    const log = execFileSync('git', ['log', '--format=%s'], { cwd: r.worktree, encoding: 'utf8' }).trim().split('\n');
    expect(log).toEqual([
      'autoiter iter-1 FIX-002: mean: divide by xs.length in src/stats.js',
      'autoiter iter-1 FIX-001: median: sort numerically with (a, b) => a - b in src/stats.js',
      'tiny-stats 1.0.0',
    ]);
    expect(execFileSync(process.execPath, ['scripts/scorecard.js'], { cwd: r.worktree, encoding: 'utf8' })).toContain(
      'passed: 6\nfailed: 0',
    );
    // Each FIX commit is its new reproduction test plus the fix in src/stats.js (G1: a correctness FIX adds its test;
    // G6:
    // both are key files).
    const git = (...args: string[]) => execFileSync('git', args, { cwd: r.worktree, encoding: 'utf8' });
    const commits = git('log', '--format=%H', '-2').trim().split('\n').reverse();
    for (const [i, id] of ['FIX-001', 'FIX-002'].entries()) {
      const commit = commits[i]!;
      const test = `test/repro-${id}.test.js`;
      expect(git('show', '--name-status', '--format=', commit).trim().split('\n')).toEqual([
        'M\tsrc/stats.js',
        `A\t${test}`,
      ]);
      expect(readFileSync(join(iter, 'fixes', `${id}.md`), 'utf8')).toContain(test); // key_files
      // The reproduction test really fails on the code before its commit and passes on the commit.
      const runAt = (rev: string) => {
        const d = mkdtempSync(join(tmpdir(), 'collie-repro-'));
        dirs.push(d);
        for (const [f, from] of [
          ['package.json', rev],
          ['src/stats.js', rev],
          [test, commit],
        ] as const) {
          mkdirSync(dirname(join(d, f)), { recursive: true });
          writeFileSync(join(d, f), git('show', `${from}:${f}`));
        }
        return spawnSync(process.execPath, ['--test', test], { cwd: d, encoding: 'utf8' }).status;
      };
      expect(runAt(`${commit}^`)).toBe(1);
      expect(runAt(commit)).toBe(0);
    }
    // The template's own test command (`npm test`, the flow's regression suite) runs clamp's 3 tests and both
    // reproduction tests, green.
    expect(TEST_COMMAND).toBe('node --test test/*.test.js');
    expect(execFileSync('/bin/sh', ['-c', TEST_COMMAND], { cwd: r.worktree, encoding: 'utf8' })).toMatch(
      /^# pass 5\n# fail 0$/m,
    );
    // The per-FIX transcripts, outside the worktree: tdd red → green, FIX-001 goes through one changes_requested review
    // round.
    const transcript = (id: string) => readFileSync(join(flowLogDir(r.runDir, 1), `${id}.flow.md`), 'utf8');
    const steps = (text: string) => [...text.matchAll(/^## \d+\. (.+)$/gm)].map((m) => m[1]);
    const t1 = transcript('FIX-001');
    expect(steps(t1)).toEqual([
      'flow-tdd (standard → sonnet)',
      'reproduction before the fix (must be red)',
      'flow-implement (standard → sonnet)',
      'flow-review (standard → sonnet)',
      'flow-implement (standard → sonnet)',
      'flow-review (standard → sonnet)',
      'flow-simplify (standard → sonnet)',
      'regression',
      'regression: reproduction (must be green)',
      'flow-final-review (deep → opus)',
      'result',
    ]);
    expect(t1).toContain('command: `node --test test/repro-FIX-001.test.js`\n\nexit code: 1 (exit 1; red as required)');
    expect(t1).toContain("median() now modifies its argument: after median([10,9,1]) the caller's list is [1,9,10]");
    expect(t1).toMatch(/verdict: changes_requested[\s\S]*addressing the review comments[\s\S]*verdict: approve/);
    expect(t1).toContain('command: `node --test test/*.test.js`\n\nexit code: 0 (exit 0; green as required)');
    expect(t1).toContain(
      'command: `node --test test/repro-FIX-001.test.js`\n\nexit code: 0 (exit 0; green as required)',
    );
    expect(t1).toContain('flow: tdd red→green, review approved in 2 rounds, regression green, final review approved');
    const t2 = transcript('FIX-002');
    expect(t2).toContain('command: `node --test test/repro-FIX-002.test.js`\n\nexit code: 1 (exit 1; red as required)');
    expect(t2).toContain('flow: tdd red→green, review approved in 1 round, regression green, final review approved');
    expect(existsSync(join(r.worktree, 'FIX-001.flow.md'))).toBe(false);
    // Every flow dispatch is metered into the run's token ledger (SC4's tokens_used).
    const ledger = readFileSync(join(r.runDir, 'tokens.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => tokenEntrySchema.parse(JSON.parse(l)));
    const count = (role: string) => ledger.filter((e) => e.role === role && e.iter === 1).length;
    expect(Object.fromEntries(Object.values(FLOW_STEPS).map((s) => [s.role, count(s.role)]))).toEqual({
      'flow-tdd': 2,
      'flow-implement': 3,
      'flow-review': 3,
      'flow-simplify': 2,
      'flow-final-review': 2,
    });
    expect(ledger.filter((e) => e.role === 'flow-final-review').every((e) => e.tier === 'deep' && e.tokens > 0)).toBe(
      true,
    );
    const state = JSON.parse(readFileSync(join(r.runDir, 'state.json'), 'utf8')) as {
      status: string;
      tokens_used: number;
    };
    expect(state.status).toBe('converged');
    expect(state.tokens_used).toBe(ledger.reduce((s, e) => s + e.tokens, 0));
    // The user's checkout is untouched: still one commit, still the buggy source, clean status.
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: r.repo, encoding: 'utf8' }).trim()).toBe(
      'tiny-stats 1.0.0',
    );
    expect(readFileSync(join(r.repo, 'src', 'stats.js'), 'utf8')).toContain('s / (xs.length - 1)');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: r.repo, encoding: 'utf8' })).toBe('');
  },
);

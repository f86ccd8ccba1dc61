import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { expect } from 'vitest';

/** `git <args>` in `dir`, trimmed stdout. */
export function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

function isAncestor(dir: string, commit: string, of: string): boolean {
  try {
    execFileSync('git', ['merge-base', '--is-ancestor', commit, of], { cwd: dir, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Asserts what any demo run must leave, local or on workers (issue 15's "same results.tsv shape
 * and git agreement"): results.tsv holds the baseline and one row per candidate with a score;
 * kept rows are exactly the run branch's commits after the template; every other row's commit is
 * reachable under `refs/loop/discarded/<n>` and not on the branch; HEAD is the branch at the last
 * keep with a clean tree whose config.json is that commit's; the K candidates of each batch are
 * distinct proposals. Returns the rows.
 */
export function expectRunAgreement(
  dir: string,
  branch: string,
  options: { readonly iterations: number; readonly candidates: number },
) {
  const rows = parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));
  expect(rows).toHaveLength(1 + options.iterations);
  expect(rows[0]!.status).toBe('baseline');
  for (const r of rows) {
    expect(['baseline', 'kept', 'reverted']).toContain(r.status); // no crash in a healthy run
    expect(r.score).toBeGreaterThan(2);
    expect(r.score).toBeLessThan(Math.log2(27) + 0.5);
    expect(r.candidateId).toMatch(/^[0-9a-f]{7}$/);
  }
  const kept = rows.filter((r) => r.status === 'baseline' || r.status === 'kept');
  const discarded = new Set(
    gitIn(dir, 'for-each-ref', '--format=%(objectname:short=7)', 'refs/loop/discarded/').split('\n').filter(Boolean),
  );
  for (const r of rows) {
    const isKept = kept.includes(r);
    expect(isAncestor(dir, r.candidateId, branch), `${r.candidateId} on ${branch}`).toBe(isKept);
    expect(discarded.has(r.candidateId), `${r.candidateId} under refs/loop/discarded/`).toBe(!isKept);
  }
  expect(gitIn(dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(branch);
  expect(gitIn(dir, 'rev-parse', '--short=7', 'HEAD')).toBe(kept.at(-1)!.candidateId);
  expect(gitIn(dir, 'status', '--porcelain')).toBe('');
  expect(gitIn(dir, 'rev-list', '--count', branch)).toBe(String(kept.length)); // the template commit + one per keep
  expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(
    gitIn(dir, 'show', `${kept.at(-1)!.candidateId}:config.json`) + '\n',
  );
  for (let first = 1; first <= options.iterations; first += options.candidates) {
    const batch = rows
      .slice(first, first + options.candidates)
      .map((r) => gitIn(dir, 'show', `${r.candidateId}:config.json`));
    expect(new Set(batch).size, `batch from iteration ${first}: distinct configs`).toBe(batch.length);
  }
  return rows;
}

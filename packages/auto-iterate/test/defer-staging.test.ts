// Issue 31: `files.deferStagingAt` reaches the git rollback. The harness itself reads the index
// (`git diff --cached --quiet`, a probe run before eval.mjs): with 0 every candidate's staging
// waits for its keep (the index lags the candidate commit while it runs), with Infinity the index
// equals the commit at every instant, as after `git commit`; both runs end with the same rows and
// a clean tree.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAutoIterate } from '../src/index.js';
import { dir, git, options, rows, useRepository } from './auto-iterate-fixture.js';

useRepository();

// Outside the repository, so the tree stays as committed; it appends to .loop/ (excluded).
const probeDir = mkdtempSync(join(tmpdir(), 'loop-defer-probe-'));
const PROBE = join(probeDir, 'probe.mjs');
writeFileSync(
  PROBE,
  `import { execSync } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
let state = 'equal';
try { execSync('git diff --cached --quiet'); } catch { state = 'lags'; }
mkdirSync('.loop', { recursive: true });
appendFileSync('.loop/index.log', state + '\\n');
`,
);
afterAll(() => rmSync(probeDir, { recursive: true, force: true }));

const XS = [2, 5, 3, 1]; // keep, discard, keep, discard (x = 9 would crash in the fixture's eval.mjs)

async function run(deferStagingAt: number): Promise<{ rows: string[]; seen: string[] }> {
  await createAutoIterate(
    options(XS, {
      tag: `d${deferStagingAt}`,
      files: { deferStagingAt },
      run: { command: `node ${PROBE} && node eval.mjs`, timeBudgetS: 10, killTimeoutS: 20 },
    }),
  ).run();
  return {
    rows: rows().map((r) => `${r.status} ${r.score}`),
    seen: readFileSync(join(dir, '.loop', 'index.log'), 'utf8')
      .trim()
      .split('\n'),
  };
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
    rmSync(join(dir, '.loop'), { recursive: true, force: true });
    const staged = await run(Infinity);
    expect(staged.seen).toEqual(['equal', 'equal', 'equal', 'equal', 'equal']);
    expect(staged.rows).toEqual(deferred.rows);
    expect(git('rev-parse', 'HEAD^{tree}')).toBe(tree);
    expect(git('status', '--porcelain')).toBe('');
  });

  it('a bad deferStagingAt is CONFIG_INVALID naming files.deferStagingAt', () => {
    expect(() => createAutoIterate(options([1], { files: { deferStagingAt: 1.5 } }))).toThrow(
      /files\.deferStagingAt: must be a whole number of bytes \(0 or more\) or Infinity/,
    );
  });
});

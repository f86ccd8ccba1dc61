import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback } from '../src/index.js';
import { makeRepo, testOptions, type TempRepo } from './helpers.js';

const BRANCH = 'auto-iterate/t';
const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});
const info = (iteration: number) => ({ iteration, attempt: 0, description: `edit ${iteration}` });

describe('allowDirty keeps the user untracked files out of the run', () => {
  it(
    'an untracked notes.txt (and an oddly named one) is in no candidate ' +
      'commit and survives every revert and a keep',
    async () => {
      const repo = makeRepo({ 'train.py': 'lr = 0.1\n' });
      repos.push(repo);
      repo.write('notes.txt', 'my notes\n');
      repo.write('my dir/#odd [1]*.txt', 'odd\n');
      const rollback = createGitResetRollback({
        ...testOptions(),
        dir: repo.dir,
        branch: BRANCH,
        allowDirty: true,
      });
      const report = await rollback.start();
      expect(report.excludesAdded).toEqual(expect.arrayContaining(['/notes.txt', '/my dir/\\#odd \\[1\\]\\*.txt']));

      for (const iteration of [1, 2, 3]) {
        const cp = await rollback.checkpoint(iteration);
        repo.write('train.py', `lr = 0.${iteration + 1}\n`);
        const id = await rollback.commit(cp, info(iteration));
        expect(repo.git('show', '--name-only', '--format=', id)).toBe('train.py');
        if (iteration === 2) await rollback.keep(cp, id);
        else await rollback.revert(cp, { ...info(iteration), candidateId: id });
        expect(repo.read('notes.txt')).toBe('my notes\n');
        expect(repo.read('my dir/#odd [1]*.txt')).toBe('odd\n');
      }
      expect(repo.git('ls-tree', '-r', '--name-only', BRANCH)).toBe('train.py');
      expect(repo.git('status', '--porcelain')).toBe('');
    },
  );
});

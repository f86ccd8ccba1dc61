// A revert removes the empty directories the candidate created (git keeps none, so a reset alone
// leaves them; issue 32 item 8), and never one that existed at the checkpoint or is ignored.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback } from '../src/index.js';
import { makeRepo, testOptions, steppingClock, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function setUp(paths?: string[]) {
  const repo = makeRepo({ 'a.txt': 'a\n', 'src/b.txt': 'b\n', '.gitignore': 'build/\n' });
  repos.push(repo);
  const rollback = createGitResetRollback({
    ...testOptions(),
    dir: repo.dir,
    branch: 'run/dirs',
    clock: steppingClock(),
    ...(paths ? { paths } : {}),
  });
  const mkdir = (path: string) => mkdirSync(join(repo.dir, path), { recursive: true });
  return { repo, rollback, mkdir, exists: (path: string) => existsSync(join(repo.dir, path)) };
}

describe('revert removes the empty directories a candidate created', () => {
  it(
    'a candidate that only created empty directories (a no-change row): they ' +
      'are removed, the ones that existed before stay',
    async () => {
      const { repo, rollback, mkdir, exists } = setUp();
      await rollback.start();
      mkdir('kept-empty'); // the user's, before the run's checkpoint
      mkdir('src/old/deeper');
      const cp = await rollback.checkpoint(1);
      mkdir('new/inner/deepest');
      mkdir('src/old/deeper/added');
      mkdir('build/cache'); // ignored: a revert keeps ignored things
      const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'nothing git sees' });
      await rollback.revert(cp, { iteration: 1, candidateId: id });
      expect(exists('new')).toBe(false);
      expect(exists('src/old/deeper/added')).toBe(false);
      expect(exists('src/old/deeper')).toBe(true);
      expect(exists('kept-empty')).toBe(true);
      expect(exists('build/cache')).toBe(true);
      expect(rollback.lastRestore()?.directories).toEqual([
        'new',
        'new/inner',
        'new/inner/deepest',
        'src/old/deeper/added',
      ]);
      expect(repo.git('status', '--porcelain')).toBe('');
    },
  );

  it(
    'a discarded candidate that added a file and an empty directory beside ' +
      'it: both go, and a new directory that holds an ignored file stays',
    async () => {
      const { repo, rollback, mkdir, exists } = setUp();
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      repo.write('lib/x.txt', 'x\n');
      mkdir('lib/empty');
      repo.write('tmp/build/out.o', 'o'); // ignored file inside a new directory
      const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'a file and a folder' });
      await rollback.revert(cp, { iteration: 1, candidateId: id });
      expect(exists('lib')).toBe(false);
      expect(exists('tmp/build/out.o')).toBe(true);
      expect(repo.git('status', '--porcelain')).toBe('');
    },
  );

  it(
    'a kept candidate keeps its directories, and the next revert removes ' + 'only what the next candidate created',
    async () => {
      const { rollback, mkdir, exists } = setUp(['src/']);
      await rollback.start();
      const cp1 = await rollback.checkpoint(1);
      mkdir('src/one');
      await rollback.keep(cp1, await rollback.commit(cp1, { iteration: 1, attempt: 0, description: 'one' }));
      const cp2 = await rollback.checkpoint(2);
      mkdir('src/two');
      mkdir('outside'); // not under paths: neither committed nor reverted
      await rollback.revert(cp2, {
        iteration: 2,
        candidateId: await rollback.commit(cp2, { iteration: 2, attempt: 0, description: 'two' }),
      });
      expect(exists('src/one')).toBe(true);
      expect(exists('src/two')).toBe(false);
      expect(exists('outside')).toBe(true);
    },
  );
});

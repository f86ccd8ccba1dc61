// Nothing a revert removes is lost (issue 12, fault 7: "a file the user creates in the workspace
// while a discarded iteration runs is deleted and is in no commit: gone for good"). The discarded
// ref points at a rescue commit on top of the candidate that holds every such file.
import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback, readDiscardedRefs } from '../src/index.js';
import { makeRepo, testOptions, steppingClock, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function setup(paths?: string[]) {
  const repo = makeRepo({ 'train.py': 'lr = 1\n', 'src/model.py': 'layers = 2\n' });
  repos.push(repo);
  const rollback = createGitResetRollback({
    ...testOptions(),
    dir: repo.dir,
    branch: 'run/rescue',
    clock: steppingClock(),
    ...(paths ? { paths } : {}),
  });
  return { repo, rollback };
}

describe('a revert keeps every file it removes reachable under refs/loop/discarded/<n>', () => {
  it(
    'a file the user creates while a discarded iteration runs (after the ' +
      'candidate commit) is in the discarded ref; the candidate is its parent',
    async () => {
      const { repo, rollback } = setup();
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      repo.write('train.py', 'lr = 2\n');
      const candidate = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'lr 2' });
      // The harness runs; meanwhile the user saves notes and edits the model file.
      repo.write('notes/idea.txt', 'try layers = 3\n');
      repo.write('src/model.py', 'layers = 3 # user edit\n');
      await rollback.revert(cp, { iteration: 1, candidateId: candidate });

      expect(repo.exists('notes/idea.txt')).toBe(false); // the revert removes what the iteration created
      expect(repo.read('src/model.py')).toBe('layers = 2\n');
      expect(repo.git('status', '--porcelain')).toBe('');
      const [saved] = await readDiscardedRefs(repo.dir);
      expect(saved).toMatchObject({ ref: 'refs/loop/discarded/1', iteration: 1 });
      expect(repo.git('show', 'refs/loop/discarded/1:notes/idea.txt')).toBe('try layers = 3');
      expect(repo.git('show', 'refs/loop/discarded/1:src/model.py')).toBe('layers = 3 # user edit');
      expect(repo.git('show', 'refs/loop/discarded/1:train.py')).toBe('lr = 2');
      expect(repo.git('rev-parse', 'refs/loop/discarded/1^')).toBe(candidate);
      expect(repo.git('log', '-1', '--format=%s', 'refs/loop/discarded/1')).toMatch(
        /^loop: working-tree files a reset removed/,
      );
      expect(repo.git('fsck', '--no-progress', '--no-dangling')).toBe('');
    },
  );

  it(
    'without late files the discarded ref points at the candidate itself, ' +
      'and a second revert call writes nothing new',
    async () => {
      const { repo, rollback } = setup();
      const cp = await rollback.checkpoint(1);
      repo.write('train.py', 'lr = 3\n');
      const candidate = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'lr 3' });
      await rollback.revert(cp, { iteration: 1, candidateId: candidate });
      await rollback.revert(cp, { iteration: 1, candidateId: candidate });
      expect((await readDiscardedRefs(repo.dir)).map((r) => [r.name, r.oid])).toEqual([['1', candidate]]);
    },
  );

  it('a rescued revert called again (idempotent) does not save the candidate a second time', async () => {
    const { repo, rollback } = setup();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 4\n');
    const candidate = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'lr 4' });
    repo.write('late.txt', 'late\n');
    await rollback.revert(cp, { iteration: 1, candidateId: candidate });
    await rollback.revert(cp, { iteration: 1, candidateId: candidate });
    expect((await readDiscardedRefs(repo.dir)).map((r) => r.name)).toEqual(['1']);
  });

  it('with paths, a late file inside the paths is rescued; one outside is neither touched nor committed', async () => {
    const { repo, rollback } = setup(['src']);
    const cp = await rollback.checkpoint(1);
    repo.write('src/model.py', 'layers = 9\n');
    const candidate = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'layers 9' });
    repo.write('src/late.py', 'x = 1\n');
    repo.write('outside.txt', 'user\n');
    await rollback.revert(cp, { iteration: 1, candidateId: candidate });
    expect(repo.exists('src/late.py')).toBe(false);
    expect(repo.read('outside.txt')).toBe('user\n');
    expect(repo.git('show', 'refs/loop/discarded/1:src/late.py')).toBe('x = 1');
    expect(repo.git('ls-tree', '-r', '--name-only', 'refs/loop/discarded/1')).not.toContain('outside.txt');
  });
});

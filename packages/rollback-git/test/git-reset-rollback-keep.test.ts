import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpRepos, info, setup } from './git-reset-setup.js';

afterEach(cleanUpRepos);

describe('createGitResetRollback: keep', () => {
  it(
    'keep resets what changed after the commit (the harness wrote a file, deleted a tracked one, ' +
      'edited the kept file) to the kept candidate, and saves those changes as refs/loop/discarded/keep-<n>',
    async () => {
      const { repo, rollback } = setup({ excludes: ['run.log'] });
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      repo.write('train.py', 'lr = 0.05\n'); // the candidate
      const id = await rollback.commit(cp, info(1));
      // The harness, after the commit:
      repo.write('junk/out-1.txt', 'checkpoint\n');
      repo.remove('prepare.py');
      repo.write('train.py', 'lr = 99\n');
      repo.write('run.log', 'score: 1\n'); // excluded: the run's own log stays
      expect(await rollback.keep(cp, id)).toBe(id);
      expect(repo.git('rev-parse', 'HEAD')).toBe(id);
      expect(repo.read('train.py')).toBe('lr = 0.05\n');
      expect(repo.read('prepare.py')).toBe('data = 1\n');
      expect(repo.exists('junk')).toBe(false);
      expect(repo.read('run.log')).toBe('score: 1\n');
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(rollback.lastRestore()).toMatchObject({ operation: 'keep', targetId: id, fallback: false });
      // Nothing is lost: the harness's changes are a rescue commit on top of the kept one.
      const saved = repo.git('rev-parse', 'refs/loop/discarded/keep-1');
      expect(repo.git('rev-parse', `${saved}^`)).toBe(id);
      expect(repo.git('show', `${saved}:junk/out-1.txt`)).toBe('checkpoint');
      expect(repo.git('show', `${saved}:train.py`)).toBe('lr = 99');
    },
  );

  it('keep of an untouched working tree writes nothing: no rescue ref, the last restore unchanged', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.05\n');
    const id = await rollback.commit(cp, info(1));
    const refsBefore = repo.git('for-each-ref', '--format=%(refname) %(objectname)');
    expect(await rollback.keep(cp, id)).toBe(id);
    expect(repo.git('for-each-ref', '--format=%(refname) %(objectname)')).toBe(refsBefore);
    expect(rollback.lastRestore()).toBeUndefined();
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it(
    "the checkpoint after the baseline's resets what the baseline's run wrote (saved as " +
      'refs/loop/discarded/baseline); with allowDirty it is left for the first candidate, as documented',
    async () => {
      for (const allowDirty of [false, true]) {
        const { repo, rollback } = setup({ allowDirty });
        await rollback.start();
        const cp0 = await rollback.checkpoint(0);
        repo.write('junk/out-0.txt', 'checkpoint\n'); // the baseline's run
        repo.remove('prepare.py');
        const cp1 = await rollback.checkpoint(1);
        expect(cp1.id).toBe(cp0.id);
        if (allowDirty) {
          expect(repo.exists('prepare.py')).toBe(false);
          expect(() => repo.git('rev-parse', '--verify', '-q', 'refs/loop/discarded/baseline')).toThrow();
          continue;
        }
        expect(repo.read('prepare.py')).toBe('data = 1\n');
        expect(repo.exists('junk')).toBe(false);
        expect(repo.git('status', '--porcelain')).toBe('');
        expect(repo.git('show', 'refs/loop/discarded/baseline:junk/out-0.txt')).toBe('checkpoint');
      }
    },
  );
});

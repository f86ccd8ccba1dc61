import { rmSync, symlinkSync, readlinkSync, lstatSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitResetRollback, readDiscardedRefs, shortId } from '../src/index.js';
import { cleanUpRepos, info, setup } from './git-reset-setup.js';

afterEach(cleanUpRepos);

describe('createGitResetRollback: revert', () => {
  it('revert removes files the candidate added', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('new/deep/extra.py', 'x = 1\n');
    repo.write('top.txt', 'top\n');
    const id = await rollback.commit(cp, info(1));
    expect(repo.git('show', '--name-only', '--format=', id).split('\n').sort()).toEqual([
      'new/deep/extra.py',
      'top.txt',
    ]);
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.exists('top.txt')).toBe(false);
    expect(repo.exists('new/deep/extra.py')).toBe(false);
    expect(repo.exists('new')).toBe(false); // empty directories left behind are removed
    expect(repo.git('rev-parse', 'HEAD')).toBe(cp.id);
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(rollback.lastRestore()).toMatchObject({ operation: 'revert', targetId: cp.id, fallback: false });
  });

  it('revert brings back files the candidate deleted', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.remove('prepare.py');
    repo.remove('src/deep');
    const id = await rollback.commit(cp, info(1));
    expect(repo.git('ls-tree', '-r', '--name-only', id)).not.toContain('src/deep/util.py');
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.read('prepare.py')).toBe('data = 1\n');
    expect(repo.read('src/deep/util.py')).toBe('def f(): pass\n');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it("revert restores a file's executable mode", async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    chmodSync(join(repo.dir, 'run.sh'), 0o644); // mode-only change
    chmodSync(join(repo.dir, 'train.py'), 0o755);
    repo.write('prepare.py', 'data = 2\n', true); // content and mode
    const id = await rollback.commit(cp, info(1));
    const modes = repo.git('ls-tree', id, 'run.sh', 'train.py', 'prepare.py');
    expect(modes).toMatch(/^100644 blob \w+\trun\.sh$/m);
    expect(modes).toMatch(/^100755 blob \w+\ttrain\.py$/m);
    expect(modes).toMatch(/^100755 blob \w+\tprepare\.py$/m);
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.isExecutable('run.sh')).toBe(true);
    expect(repo.isExecutable('train.py')).toBe(false);
    expect(repo.isExecutable('prepare.py')).toBe(false);
    expect(repo.read('prepare.py')).toBe('data = 1\n');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('results.tsv and run.log survive a revert', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    repo.write('results.tsv', 'commit\tscore\tstatus\tdescription\n');
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.2\n');
    repo.write('run.log', 'val_bpb: 1.23\n');
    repo.write('.loop/state.json', '{"iteration":1}\n');
    const id = await rollback.commit(cp, info(1));
    expect(repo.git('show', '--name-only', '--format=', id)).toBe('train.py');
    repo.write('results.tsv', `commit\tscore\tstatus\tdescription\n${shortId(id)}\t1.23\tdiscard\tlr 0.2\n`);
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.read('train.py')).toBe('lr = 0.1\n');
    expect(repo.read('run.log')).toBe('val_bpb: 1.23\n');
    expect(repo.read('results.tsv')).toContain(`${shortId(id)}\t1.23`);
    expect(repo.read('.loop/state.json')).toBe('{"iteration":1}\n');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('a discarded commit stays reachable under refs/loop/discarded/<iteration>', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(3);
    repo.write('train.py', 'lr = 0.3\n');
    const first = await rollback.commit(cp, info(3));
    await rollback.revert(cp, { iteration: 3, candidateId: first });
    await rollback.revert(cp, { iteration: 3, candidateId: first }); // idempotent: no second ref
    expect(repo.git('rev-parse', 'refs/loop/discarded/3')).toBe(first);
    expect(repo.git('diff', '--name-only', cp.id, 'refs/loop/discarded/3')).toBe('train.py');
    expect(repo.git('show', 'refs/loop/discarded/3:train.py')).toBe('lr = 0.3');

    // The same iteration discarded again with another candidate gets a suffix.
    repo.write('train.py', 'lr = 0.4\n');
    const second = await rollback.commit(cp, info(3, 'edit 3 again', 1));
    await rollback.revert(cp, { iteration: 3, candidateId: second });
    expect(repo.git('rev-parse', 'refs/loop/discarded/3-1')).toBe(second);
    const refs = await readDiscardedRefs(repo.dir);
    expect(refs.map((r) => [r.name, r.oid, r.iteration, r.attempt])).toEqual([
      ['3', first, 3, 0],
      ['3-1', second, 3, 1],
    ]);
    // Reachable means git gc keeps it: it is listed by for-each-ref.
    expect(repo.git('for-each-ref', '--format=%(refname)', 'refs/loop/')).toBe(
      'refs/loop/discarded/3\nrefs/loop/discarded/3-1',
    );
  });

  it('revert restores files the harness modified after the commit', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.2\n');
    const id = await rollback.commit(cp, info(1));
    // The harness runs and scribbles: a tracked file the candidate did not touch, the candidate's
    // file, a deleted file, and an untracked output that is not ignored.
    repo.write('prepare.py', 'data = 999\n');
    repo.write('train.py', 'lr = 0.2 # tuned during the run\n');
    repo.remove('src/model.py');
    repo.write('outputs/model.bin', 'weights');
    repo.write('src/__pycache__/model.cpython-311.pyc', 'bytecode'); // ignored by .gitignore: survives
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.read('prepare.py')).toBe('data = 1\n');
    expect(repo.read('train.py')).toBe('lr = 0.1\n');
    expect(repo.read('src/model.py')).toBe('layers = 2\n');
    expect(repo.exists('outputs')).toBe(false);
    expect(repo.read('src/__pycache__/model.cpython-311.pyc')).toBe('bytecode');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('revert restores a symbolic link', async () => {
    const { repo, rollback } = setup();
    symlinkSync('train.py', join(repo.dir, 'current.py'));
    repo.git('add', 'current.py');
    repo.git('commit', '-q', '-m', 'link');
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    rmSync(join(repo.dir, 'current.py'));
    symlinkSync('prepare.py', join(repo.dir, 'current.py'));
    const id = await rollback.commit(cp, info(1));
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(lstatSync(join(repo.dir, 'current.py')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(repo.dir, 'current.py'))).toBe('train.py');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('revert handles a file replaced by a directory, and a directory replaced by a file', async () => {
    for (const paths of [undefined, ['prepare.py', 'src']]) {
      const { repo, rollback } = setup(paths ? { paths } : {});
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      repo.remove('prepare.py');
      repo.write('prepare.py/part1.py', 'p1\n');
      repo.remove('src/deep');
      repo.write('src/deep', 'now a file\n');
      const id = await rollback.commit(cp, info(1));
      expect(repo.git('ls-tree', '-r', '--name-only', id).split('\n')).toEqual(
        expect.arrayContaining(['prepare.py/part1.py', 'src/deep']),
      );
      await rollback.revert(cp, { iteration: 1, candidateId: id });
      expect(repo.read('prepare.py')).toBe('data = 1\n');
      expect(repo.read('src/deep/util.py')).toBe('def f(): pass\n');
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(rollback.lastRestore()?.fallback).toBe(false);
    }
  });

  it('revert is idempotent and verifies on the fast path', async () => {
    const { repo, rollback } = setup();
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    repo.write('train.py', 'lr = 0.5\n');
    const id = await rollback.commit(cp, info(1));
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(rollback.lastRestore()).toMatchObject({ paths: [], fallback: false });
    expect(repo.read('train.py')).toBe('lr = 0.1\n');
    expect(await rollback.currentId()).toBe(cp.id);
  });
});
